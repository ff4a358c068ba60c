import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './gateway-process';

/** The README's fenced code blocks, in order. */
export const README_BLOCKS = [...readFileSync(join(REPO_ROOT, 'README.md'), 'utf8').matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], body: m[2] as string }));

/** The first line of the README's plugin author block, which publishes to a registry. */
export const AUTHOR_LOOP = '# author loop\n';

/** Shell lines of a bash block, continuations joined, comments and blank lines dropped. */
export function shellLines(body: string): string[] {
  return body
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}
