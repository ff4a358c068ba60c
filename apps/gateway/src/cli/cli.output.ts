import type { Run } from '@toolgate/sdk';
import Table from 'cli-table3';

export const printJson = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
};

export function printTable(head: string[], rows: (string | number)[][]): void {
  const table = new Table({ head, style: { head: [], border: [] }, wordWrap: true });
  table.push(...rows.map((r) => r.map(String)));
  process.stdout.write(`${table.toString()}\n`);
}

export const truncate = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export const ms = (durationMs: number) => `${Math.round(durationMs)} ms`;

/** The final run for people (a table of steps) or programs (--json). */
export function printRun(run: Run, json: boolean | undefined): void {
  if (json) {
    printJson(run);
    return;
  }
  process.stdout.write(`run ${run.id}: ${run.status}${run.reason ? ` (${run.reason})` : ''}\ntrace: ${run.traceId}\n`);
  printTable(
    ['step', 'tool', 'status', 'attempts', 'time', 'output / error'],
    run.steps.map((step) => [
      step.id,
      step.tool,
      step.status,
      step.attempts,
      ms(step.durationMs),
      truncate(
        step.error ? `${step.error.code}: ${step.error.message}${step.error.path ? ` at ${step.error.path}` : ''}` : step.output !== undefined ? JSON.stringify(step.output) : (step.reason ?? ''),
        80,
      ),
    ]),
  );
}
