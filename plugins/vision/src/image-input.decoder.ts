import { ErrorCode, ToolgateError } from '@toolgate/sdk';

export type ImageMimeType = 'image/png' | 'image/jpeg';

/** Base64 of at most 10 MB of image bytes. */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
export const MAX_BASE64_LENGTH = Math.ceil(MAX_IMAGE_BYTES / 3) * 4;

const SIGNATURES: { mimeType: ImageMimeType; magic: number[] }[] = [
  { mimeType: 'image/png', magic: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { mimeType: 'image/jpeg', magic: [0xff, 0xd8, 0xff] },
];

const invalid = (path: string, message: string) => new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `${path.slice(1)}: ${message}`, [{ path, message }]);

/**
 * The image bytes of a base64 argument (a `data:` URL prefix is accepted), checked to be one of
 * `accepted` by their signature rather than trusted from the declared type.
 */
export function decodeImage(base64: string, path: string, accepted: readonly ImageMimeType[], declared?: string): { bytes: Buffer; mimeType: ImageMimeType } {
  const payload = base64.replace(/^data:[\w/+.-]+;base64,/, '').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(payload) || payload.length % 4 === 1) throw invalid(path, 'is not base64');
  const bytes = Buffer.from(payload, 'base64');
  if (bytes.length > MAX_IMAGE_BYTES) throw invalid(path, `the image is larger than ${MAX_IMAGE_BYTES} bytes`);
  const mimeType = SIGNATURES.find((s) => s.magic.every((byte, i) => bytes[i] === byte))?.mimeType;
  if (!mimeType || !accepted.includes(mimeType)) throw invalid(path, `is not a ${accepted.join(' or ')} image`);
  if (declared !== undefined && declared !== mimeType) throw invalid('/mimeType', `says ${declared} but the data is ${mimeType}`);
  return { bytes, mimeType };
}
