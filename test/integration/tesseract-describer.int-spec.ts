import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createImageDescriber, plannerEnvSchema, plannerOptionsFromEnv, type TaskImage, TESSERACT_INSTALL_COMMAND, TesseractImageDescriber } from '@toolgate/planner';
import { ErrorCode, type ToolgateError } from '@toolgate/sdk';
import { renderTableImage, renderTextImage } from '../support/text-image';

/** The real tesseract CLI (installed by scripts/ensure-tesseract.sh in `npm test`): missing is a failure, never a skip. */

const asImage = (bytes: Buffer, mimeType = 'image/png', name?: string): TaskImage => ({ mimeType, data: bytes.toString('base64'), ...(name ? { name } : {}) });
const normalise = (text: string) => text.toLowerCase().replace(/\s+/g, ' ').trim();
const failureOf = async (promise: Promise<unknown>): Promise<ToolgateError> => {
  try {
    await promise;
  } catch (error) {
    return error as ToolgateError;
  }
  throw new Error('expected a failure');
};

const SALES = [
  ['Region', 'Q1', 'Q2', 'Q3', 'Total'],
  ['North', '1,200', '1,350', '990', '3,540'],
  ['South', '980', '1,010', '1,105', '3,095'],
  ['West', '1,500', '1,420', '1,610', '4,530'],
];

describe('TesseractImageDescriber (real tesseract)', () => {
  const describer = new TesseractImageDescriber();

  it('reads a line of text back, from PNG, JPEG and WebP', async () => {
    const line = 'convert 5 miles to kilometers';
    const images = (['image/png', 'image/jpeg', 'image/webp'] as const).map((mimeType) => asImage(renderTextImage(line, { mimeType }), mimeType));
    const descriptions = await describer.describe(images);
    expect(descriptions.map((d) => ({ text: normalise(d.text), source: d.source, mimeType: d.mimeType }))).toEqual([
      { text: line, source: 'ocr', mimeType: 'image/png' },
      { text: line, source: 'ocr', mimeType: 'image/jpeg' },
      { text: line, source: 'ocr', mimeType: 'image/webp' },
    ]);
  });

  it('reads a table row by row, cells separated by tabs', async () => {
    const [description] = await describer.describe([asImage(renderTableImage(SALES), 'image/png', 'sales.png')]);
    expect(description.name).toBe('sales.png');
    const rows = description.text.split('\n').map((row) => row.split('\t').map((cell) => cell.trim()));
    // Tesseract reads the digit 1 after Q as a lowercase l in this font; the numbers are what matters.
    expect(rows.slice(1)).toEqual(SALES.slice(1));
    expect(rows[0]).toHaveLength(5);
    expect(rows[0][0]).toBe('Region');
    expect(rows[0][4]).toBe('Total');
  });

  it('keeps the lines of a text in order', async () => {
    const lines = ['Meeting notes', 'call Alice at 3pm tomorrow', 'book a room for 6 people'];
    const [description] = await describer.describe([asImage(renderTextImage(lines, { fontSize: 24 }))]);
    expect(description.text.split('\n').map(normalise)).toEqual(lines.map(normalise));
  });

  it('checks every image before reading any, and names the bad one', async () => {
    const good = asImage(renderTextImage('hello'));
    const cases: [TaskImage, RegExp][] = [
      [{ mimeType: 'image/svg+xml', data: Buffer.from('<svg/>').toString('base64') }, /type "image\/svg\+xml" is not supported/],
      [{ mimeType: 'image/png', data: 'not base64!' }, /not valid base64/],
      [{ mimeType: 'image/png', data: '' }, /empty/],
      [{ mimeType: 'image/png', data: Buffer.from('%PDF-1.7 not an image').toString('base64') }, /not a recognised image/],
      [asImage(renderTextImage('hello', { mimeType: 'image/jpeg' }), 'image/png'), /declared image\/png but the data is image\/jpeg/],
    ];
    for (const [bad, message] of cases) {
      const error = await failureOf(describer.describe([good, { ...bad, name: 'upload.bin' }]));
      expect({ code: error.code, message: error.message, details: error.details }).toEqual({
        code: ErrorCode.INVALID_ARGUMENTS,
        message: expect.stringMatching(message),
        details: [{ path: '/images/1', message: expect.stringMatching(message) }],
      });
      expect(error.message).toContain('image 2 (upload.bin)');
    }
  });

  it('refuses an image over the size bound before decoding it', async () => {
    const small = new TesseractImageDescriber({ maxImageBytes: 2048 });
    const error = await failureOf(small.describe([asImage(renderTextImage('a line long enough to make a PNG over two kilobytes', { fontSize: 40 }))]));
    expect(error).toMatchObject({ code: ErrorCode.INVALID_ARGUMENTS, details: [{ path: '/images/0', message: expect.stringMatching(/over the limit of 2048/) }] });
  });

  it('reports a corrupt image with a valid header as INVALID_ARGUMENTS naming it', async () => {
    const truncated = renderTextImage('hello').subarray(0, 60);
    const error = await failureOf(describer.describe([asImage(truncated)]));
    expect(error).toMatchObject({ code: ErrorCode.INVALID_ARGUMENTS, details: [{ path: '/images/0' }] });
  });

  it('says how to install tesseract when it is missing, and when a language is missing', async () => {
    const missing = new TesseractImageDescriber({ command: '/nonexistent/tesseract' });
    const error = await failureOf(missing.describe([asImage(renderTextImage('hello'))]));
    expect(error).toMatchObject({ code: ErrorCode.UNAVAILABLE, message: expect.stringContaining(TESSERACT_INSTALL_COMMAND) });

    const noLanguage = new TesseractImageDescriber({ languages: 'xyz' });
    const languageError = await failureOf(noLanguage.describe([asImage(renderTextImage('hello'))]));
    expect(languageError).toMatchObject({ code: ErrorCode.UNAVAILABLE, message: expect.stringContaining('"xyz"') });
  });

  describe('a stuck OCR process', () => {
    // A stand-in for tesseract that records its pid and hangs, so the test can see it was killed.
    const dir = mkdtempSync(join(tmpdir(), 'stuck-tesseract-'));
    const pidFile = join(dir, 'pid');
    const command = join(dir, 'tesseract');
    writeFileSync(command, `#!/bin/sh\necho $$ > ${pidFile}\nexec sleep 60\n`);
    chmodSync(command, 0o755);
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    const pidWhenStarted = async () => {
      while (!existsSync(pidFile) || readFileSync(pidFile, 'utf8').trim() === '') await new Promise((r) => setTimeout(r, 20));
      return Number(readFileSync(pidFile, 'utf8'));
    };

    it('is killed after the timeout, with TIMEOUT', async () => {
      writeFileSync(pidFile, '');
      const error = await failureOf(new TesseractImageDescriber({ command, timeoutMs: 300 }).describe([asImage(renderTextImage('hello'))]));
      expect(error).toMatchObject({ code: ErrorCode.TIMEOUT, message: expect.stringContaining('image 1') });
      expect(alive(await pidWhenStarted())).toBe(false);
    });

    it('is killed when the caller aborts', async () => {
      writeFileSync(pidFile, '');
      const controller = new AbortController();
      const running = new TesseractImageDescriber({ command, timeoutMs: 60_000 }).describe([asImage(renderTextImage('hello'))], controller.signal);
      const pid = await pidWhenStarted();
      controller.abort();
      const error = await failureOf(running);
      expect(error).toMatchObject({ code: ErrorCode.TIMEOUT, message: expect.stringContaining('cancelled') });
      expect(alive(pid)).toBe(false);
    });
  });

  it('is what the factory builds by default, and `none` refuses images with a typed error', async () => {
    const defaults = plannerOptionsFromEnv(plannerEnvSchema.parse({}));
    expect(createImageDescriber(defaults)).toBeInstanceOf(TesseractImageDescriber);
    const none = createImageDescriber(plannerOptionsFromEnv(plannerEnvSchema.parse({ TOOLGATE_IMAGE_DESCRIBER: 'none' })));
    await expect(none.describe([])).resolves.toEqual([]);
    await expect(none.describe([asImage(renderTextImage('hello'))])).rejects.toMatchObject({ code: ErrorCode.UNAVAILABLE, message: expect.stringContaining('TOOLGATE_IMAGE_DESCRIBER=none') });
  });
});
