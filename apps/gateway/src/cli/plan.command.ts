import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { type Plan, type PlanningCandidate, sniffImageFormat, type TaskImage } from '@toolgate/planner';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { printJson, printTable, truncate } from './output';

export interface PlanFlags {
  image?: string[];
  session?: string;
  timeZone?: string;
  at?: string;
  key?: string;
  json?: boolean;
}

const MIME_OF = { png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif', tiff: 'image/tiff', bmp: 'image/bmp', webp: 'image/webp' } as const;

/** Reads image files for a task; the type comes from the bytes, and the describer checks it again. */
export async function readTaskImages(paths: readonly string[]): Promise<TaskImage[]> {
  return Promise.all(
    paths.map(async (path, index) => {
      const bytes = await readFile(path).catch((error: NodeJS.ErrnoException) => {
        throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `cannot read image ${path}: ${error.code ?? error.message}`, [{ path: `/images/${index}`, message: 'unreadable file' }], error);
      });
      const format = sniffImageFormat(bytes);
      return { mimeType: format ? MIME_OF[format] : 'application/octet-stream', data: bytes.toString('base64'), name: basename(path) };
    }),
  );
}

/** A plan for people: decision, then the steps in order with their arguments and dependencies. */
export function printPlan(plan: Plan, candidates: PlanningCandidate[], imageTexts: string[], json: boolean | undefined): void {
  if (json) {
    printJson({ ...plan, candidates: candidates.map(({ id, version, score, rank }) => ({ id, version, score, rank })), images: imageTexts });
    return;
  }
  process.stdout.write(`decision: ${plan.decision}\n`);
  if (plan.question) process.stdout.write(`question: ${plan.question}\n`);
  if (plan.explanation) process.stdout.write(`why: ${plan.explanation}\n`);
  for (const text of imageTexts) process.stdout.write(`image text: ${truncate(text.replace(/\s+/g, ' '), 100)}\n`);
  if (plan.steps.length > 0) {
    printTable(
      ['step', 'tool', 'arguments', 'after', 'reason'],
      plan.steps.map((step) => [step.id, step.tool, truncate(JSON.stringify(step.arguments), 60), step.dependsOn.join(', ') || '-', truncate(step.reason, 40)]),
    );
  }
  if (candidates.length > 0) process.stdout.write(`candidates: ${candidates.map((c) => c.id).join(', ')}\n`);
}
