import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { PNG } from 'pngjs';
import type { Pixels } from './chart.colors';

export const MAX_PIXELS = 4096 * 4096;

/**
 * RGBA pixels of a PNG, decoded in JavaScript (pngjs): a native decoder crashes the whole process on
 * some truncated files, and these bytes come from callers. The size is checked from the header first,
 * so a small file cannot claim a huge image.
 */
export function decodePng(png: Buffer, path: string): Pixels {
  const invalid = (message: string, cause?: unknown) => new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `${path.slice(1)}: ${message}`, [{ path, message }], { cause });
  if (png.length < 24 || png.toString('latin1', 12, 16) !== 'IHDR') throw invalid('the PNG has no header');
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  if (width * height > MAX_PIXELS) throw invalid(`the image has more than ${MAX_PIXELS} pixels`);
  try {
    const image = PNG.sync.read(png);
    return { width: image.width, height: image.height, data: image.data };
  } catch (error) {
    throw invalid('the image data is corrupt or truncated', error);
  }
}

/** The first `rows` rows of an image as a greyscale PNG: all OCR needs, and a quarter of the bytes to compress. */
export function encodeGreyPng(pixels: Pixels, rows = pixels.height): Buffer {
  const image = new PNG({ width: pixels.width, height: rows });
  image.data.set(pixels.data.subarray(0, image.data.length));
  return PNG.sync.write(image, { colorType: 0, inputColorType: 6 });
}

/** Darker than this (0-255 luminance) is ink: text or a rule. */
const INK = 160;

const isInk = (data: Pixels['data'], i: number) => data[i + 3] >= 128 && 0.299 * data[i] + 0.587 * data[i + 1] + 0.114 * data[i + 2] < INK;

/**
 * Paints over grid lines and rules: unbroken runs of ink at least a tenth of the image across (and
 * 50 px), far longer than any stroke of a letter. Tesseract's page layout drops whole columns of a
 * table drawn with cell borders; without them it reads the cells. Returns how many runs it removed.
 */
export function removeRules(pixels: Pixels): number {
  const { width, height, data } = pixels;
  const runs: [x: number, y: number, dx: number, dy: number, length: number][] = [];
  const scan = (outer: number, inner: number, at: (o: number, i: number) => number, horizontal: boolean, min: number) => {
    for (let o = 0; o < outer; o++) {
      let start = -1;
      for (let i = 0; i <= inner; i++) {
        const ink = i < inner && isInk(data, at(o, i));
        if (ink && start < 0) start = i;
        if (!ink && start >= 0) {
          if (i - start >= min) runs.push(horizontal ? [start, o, 1, 0, i - start] : [o, start, 0, 1, i - start]);
          start = -1;
        }
      }
    }
  };
  scan(height, width, (y, x) => (y * width + x) * 4, true, Math.max(50, width / 10));
  scan(width, height, (x, y) => (y * width + x) * 4, false, Math.max(50, height / 10));
  for (const [x, y, dx, dy, length] of runs) {
    for (let k = 0; k < length; k++) data.fill(255, ((y + k * dy) * width + x + k * dx) * 4, ((y + k * dy) * width + x + k * dx) * 4 + 4);
  }
  return runs.length;
}
