import { spawn } from 'node:child_process';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';

export const TESSERACT_INSTALL = 'apt-get install -y tesseract-ocr tesseract-ocr-eng';

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the tesseract CLI (`TOOLGATE_TESSERACT`, the same setting as the planner's OCR, or `tesseract`
 * on PATH) with `input` on stdin. The process is killed when `signal` aborts (the call
 * is cancelled: rejects with the signal's reason) or after `timeoutMs` (TIMEOUT).
 */
function run(args: string[], input: Buffer | undefined, signal: AbortSignal, timeoutMs: number): Promise<Finished> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    // One thread: the host's cores are shared with every other call.
    const child = spawn(process.env.TOOLGATE_TESSERACT || 'tesseract', args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, OMP_THREAD_LIMIT: '1' } });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let failure: unknown;
    const stop = (reason: unknown) => {
      failure ??= reason;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => stop(new ToolgateError(ErrorCode.TIMEOUT, `tesseract took longer than ${timeoutMs} ms`)), timeoutMs);
    const onAbort = () => stop(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const settle = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    };
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', (error: NodeJS.ErrnoException) => {
      settle();
      const message = error.code === 'ENOENT' ? `tesseract is not installed; install it with \`${TESSERACT_INSTALL}\`` : `tesseract could not be started: ${error.message}`;
      reject(new ToolgateError(ErrorCode.UNAVAILABLE, message, [], { cause: error }));
    });
    child.on('close', (code) => {
      settle();
      if (failure !== undefined) return reject(failure);
      resolve({ code, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') });
    });
    // A process that rejects the image exits before reading it all; its exit code says what happened.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

/**
 * Tesseract's TSV for an image, page segmentation mode 6 (one uniform block): a table's rows stay
 * together instead of being read column by column, and every word keeps its box.
 */
export async function recognizeTsv(image: Buffer, signal: AbortSignal, timeoutMs: number, path: string): Promise<string> {
  const result = await run(['stdin', 'stdout', '-l', 'eng', '--psm', '6', 'tsv'], image, signal, timeoutMs);
  if (result.code === 0) return result.stdout;
  const stderr = result.stderr.trim();
  if (/Failed loading language|Error opening data file/i.test(stderr)) {
    throw new ToolgateError(ErrorCode.UNAVAILABLE, `tesseract has no English language data; install it with \`${TESSERACT_INSTALL}\``, [], { cause: new Error(stderr) });
  }
  // The bytes start like an image but leptonica cannot decode them: corrupt or truncated.
  throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, 'the image could not be decoded', [{ path, message: 'the image data is corrupt or truncated' }], {
    cause: new Error(stderr || `tesseract exited with code ${result.code}`),
  });
}

/** Healthy when tesseract starts and has English data. */
export async function tesseractHealth(signal: AbortSignal): Promise<{ healthy: boolean; detail: string }> {
  try {
    const result = await run(['--list-langs'], undefined, signal, 5_000);
    const languages = `${result.stdout}\n${result.stderr}`.split('\n').map((l) => l.trim());
    if (languages.includes('eng')) return { healthy: true, detail: 'tesseract with English data' };
    return { healthy: false, detail: `tesseract has no English data; install it with \`${TESSERACT_INSTALL}\`` };
  } catch (error) {
    return { healthy: false, detail: (error as Error).message };
  }
}
