import { spawn } from 'node:child_process';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import type { TaskImage } from '../plan/plan.types';
import { ImageDescriber, type ImageDescription } from './image-describer.port';
import { DEFAULT_MAX_IMAGE_BYTES, type DecodedImage, decodeImages, type ImageFormat } from './image-input.decoder';
import { textFromTesseractTsv } from './ocr-layout.parser';

export const TESSERACT_INSTALL_COMMAND = 'apt-get install -y tesseract-ocr tesseract-ocr-eng';

export interface TesseractOptions {
  /** The tesseract executable (a name on PATH or a path). */
  command: string;
  /** Tesseract language codes joined by `+`, e.g. `eng` or `eng+deu`. */
  languages: string;
  /** Per image; the process is killed when it runs longer. */
  timeoutMs: number;
  /** Upper bound on one decoded image. */
  maxImageBytes: number;
}

export const DEFAULT_TESSERACT_OPTIONS: TesseractOptions = { command: 'tesseract', languages: 'eng', timeoutMs: 30_000, maxImageBytes: DEFAULT_MAX_IMAGE_BYTES };

/** What leptonica in Debian's tesseract 5.3 decodes (`tesseract -v` lists the image libraries). */
const TESSERACT_FORMATS: readonly ImageFormat[] = ['png', 'jpeg', 'gif', 'tiff', 'bmp', 'webp'];

interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Local OCR with the tesseract CLI. Page segmentation mode 6 (one uniform block) keeps the lines of a
 * table together instead of reading it column by column, and the TSV output keeps word positions so
 * table cells come out tab-separated, row by row.
 */
export class TesseractImageDescriber extends ImageDescriber {
  readonly kind = 'ocr';
  private readonly options: TesseractOptions;

  constructor(options: Partial<TesseractOptions> = {}) {
    super();
    this.options = { ...DEFAULT_TESSERACT_OPTIONS, ...options };
  }

  async describe(images: TaskImage[], signal?: AbortSignal): Promise<ImageDescription[]> {
    const decoded = decodeImages(images, TESSERACT_FORMATS, this.options.maxImageBytes);
    const descriptions: ImageDescription[] = [];
    for (const [index, image] of decoded.entries()) {
      const text = await this.recognize(image, index, signal);
      descriptions.push({ text, source: 'ocr', mimeType: image.mimeType, ...(image.name ? { name: image.name } : {}) });
    }
    return descriptions;
  }

  private async recognize(image: DecodedImage, index: number, signal?: AbortSignal): Promise<string> {
    const label = `image ${index + 1}${image.name ? ` (${image.name})` : ''}`;
    const result = await this.run(['stdin', 'stdout', '-l', this.options.languages, '--psm', '6', 'tsv'], image.bytes, label, signal);
    if (result.code !== 0) {
      const stderr = result.stderr.trim();
      if (/Failed loading language|Error opening data file/i.test(stderr)) {
        throw new ToolgateError(ErrorCode.UNAVAILABLE, `tesseract has no language data for "${this.options.languages}"; install it, e.g. \`${TESSERACT_INSTALL_COMMAND}\``, [], {
          cause: new Error(stderr),
        });
      }
      // Valid magic number but bytes leptonica cannot decode: a truncated or corrupt image.
      throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `${label}: tesseract could not read the image`, [{ path: `/images/${index}`, message: 'the image data is corrupt or truncated' }], {
        cause: new Error(stderr || `tesseract exited with code ${result.code}`),
      });
    }
    return textFromTesseractTsv(result.stdout);
  }

  private run(args: string[], input: Buffer, label: string, signal?: AbortSignal): Promise<ProcessResult> {
    const { command, timeoutMs } = this.options;
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new ToolgateError(ErrorCode.TIMEOUT, `reading ${label} was cancelled`, [], { cause: signal.reason }));
      // One thread per process: the machine's cores are shared with the rest of the server.
      const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, OMP_THREAD_LIMIT: '1' } });
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      let failure: ToolgateError | undefined;
      const stop = (error: ToolgateError) => {
        failure ??= error;
        child.kill('SIGKILL');
      };
      const timer = setTimeout(() => stop(new ToolgateError(ErrorCode.TIMEOUT, `reading ${label} took longer than ${timeoutMs} ms`)), timeoutMs);
      const onAbort = () => stop(new ToolgateError(ErrorCode.TIMEOUT, `reading ${label} was cancelled`, [], { cause: signal?.reason }));
      signal?.addEventListener('abort', onAbort, { once: true });
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };

      child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
      child.on('error', (error: NodeJS.ErrnoException) => {
        settle();
        if (error.code === 'ENOENT') {
          reject(
            new ToolgateError(
              ErrorCode.UNAVAILABLE,
              `tesseract is not installed (no \`${command}\` on PATH); install it with \`${TESSERACT_INSTALL_COMMAND}\` or choose TOOLGATE_IMAGE_DESCRIBER=vision`,
              [],
              { cause: error },
            ),
          );
        } else {
          reject(new ToolgateError(ErrorCode.UNAVAILABLE, `tesseract could not be started: ${error.message}`, [], { cause: error }));
        }
      });
      child.on('close', (code) => {
        settle();
        if (failure) return reject(failure);
        resolve({ code, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') });
      });
      // A process that exits early (bad image) closes stdin under us; its exit code tells what happened.
      child.stdin.on('error', () => undefined);
      child.stdin.end(input);
    });
  }
}
