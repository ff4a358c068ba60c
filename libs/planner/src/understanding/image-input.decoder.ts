import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import type { TaskImage } from '../plan/plan.types';

/** Image formats Toolgate recognises by their magic number; each describer accepts a subset. */
export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'tiff' | 'bmp' | 'webp';

const MIME_TYPES: Record<ImageFormat, string[]> = {
  png: ['image/png'],
  jpeg: ['image/jpeg', 'image/jpg'],
  gif: ['image/gif'],
  tiff: ['image/tiff'],
  bmp: ['image/bmp', 'image/x-ms-bmp'],
  webp: ['image/webp'],
};

export const DEFAULT_MAX_IMAGE_BYTES = 10 * 1024 * 1024;

export interface DecodedImage {
  bytes: Buffer;
  format: ImageFormat;
  mimeType: string;
  name?: string;
}

/** The format the bytes actually are, from their first bytes; undefined for anything else. */
export function sniffImageFormat(bytes: Buffer): ImageFormat | undefined {
  const starts = (...signature: number[]) => signature.every((byte, i) => bytes[i] === byte);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'png';
  if (starts(0xff, 0xd8, 0xff)) return 'jpeg';
  if (bytes.subarray(0, 6).toString('latin1') === 'GIF87a' || bytes.subarray(0, 6).toString('latin1') === 'GIF89a') return 'gif';
  if (starts(0x49, 0x49, 0x2a, 0x00) || starts(0x4d, 0x4d, 0x00, 0x2a)) return 'tiff';
  if (starts(0x42, 0x4d) && bytes.length >= 26) return 'bmp';
  if (bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') return 'webp';
  return undefined;
}

export function mimeTypesOf(formats: readonly ImageFormat[]): string[] {
  return formats.flatMap((format) => MIME_TYPES[format]);
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Checks every image before any work starts: base64 that decodes, within the size bound, bytes whose
 * magic number is a format this describer reads and that agrees with the declared type. Each failure
 * is INVALID_ARGUMENTS naming the image (`/images/<i>`).
 */
export function decodeImages(images: TaskImage[], accepted: readonly ImageFormat[], maxBytes: number): DecodedImage[] {
  return images.map((image, index) => decodeImage(image, index, accepted, maxBytes));
}

function decodeImage(image: TaskImage, index: number, accepted: readonly ImageFormat[], maxBytes: number): DecodedImage {
  const label = `image ${index + 1}${image.name ? ` (${image.name})` : ''}`;
  const invalid = (problem: string) => new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `${label}: ${problem}`, [{ path: `/images/${index}`, message: problem }]);
  const supported = mimeTypesOf(accepted).join(', ');

  const declared = image.mimeType.trim().toLowerCase();
  const declaredFormat = (Object.keys(MIME_TYPES) as ImageFormat[]).find((format) => MIME_TYPES[format].includes(declared));
  if (!declaredFormat || !accepted.includes(declaredFormat)) throw invalid(`type ${JSON.stringify(image.mimeType)} is not supported; use one of ${supported}`);

  const data = image.data.replace(/\s+/g, '');
  if (data.length === 0) throw invalid('the image data is empty');
  if (data.length % 4 !== 0 || !BASE64.test(data)) throw invalid('the image data is not valid base64');
  // Decoded size from the encoded length, so an oversized image is refused before it is decoded.
  const size = (data.length / 4) * 3 - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0);
  if (size > maxBytes) throw invalid(`the image is ${size} bytes, over the limit of ${maxBytes}`);

  const bytes = Buffer.from(data, 'base64');
  const actual = sniffImageFormat(bytes);
  if (!actual) throw invalid(`the data is not a recognised image (${supported})`);
  if (actual !== declaredFormat) throw invalid(`declared ${declared} but the data is ${MIME_TYPES[actual][0]}`);
  return { bytes, format: actual, mimeType: MIME_TYPES[actual][0], ...(image.name ? { name: image.name } : {}) };
}
