import type { RunStep } from '@toolgate/sdk';
import type { RunStorageOptions } from '../executor.config';

/** What the audit stores instead of an output past a cap: never the value, only its size and the cap it broke. */
export interface TruncatedOutput {
  $truncated: true;
  /** Bytes of the output's JSON. */
  bytes: number;
  /** The cap it did not fit: the step's, or what was left of the run's. */
  limit: number;
  scope: 'step' | 'run';
}

const sizeOf = (output: unknown): number => (output === undefined ? 0 : Buffer.byteLength(JSON.stringify(output) ?? '', 'utf8'));

export const isTruncatedOutput = (output: unknown): output is TruncatedOutput => typeof output === 'object' && output !== null && (output as Partial<TruncatedOutput>).$truncated === true;

/**
 * The output bytes one run may still store: each step's output up to the step cap, all of them together
 * up to the run cap; past either, a `TruncatedOutput` marker. The runner keeps the full value for the
 * steps that bind to it within the run; what is recorded, returned and streamed is the stored form.
 */
export class StoredOutputBudget {
  private used = 0;

  constructor(
    private readonly limits: Pick<RunStorageOptions, 'maxStepOutputBytes' | 'maxRunOutputBytes'>,
    /** Steps already stored (a run restored after a restart): their outputs count against the run cap. */
    stored: readonly RunStep[] = [],
  ) {
    for (const step of stored) if (step.output !== undefined && !isTruncatedOutput(step.output)) this.used += sizeOf(step.output);
  }

  /** The form of `output` the audit keeps, counted against the run's budget when kept whole. */
  store(output: unknown): unknown {
    const bytes = sizeOf(output);
    if (bytes > this.limits.maxStepOutputBytes) return { $truncated: true, bytes, limit: this.limits.maxStepOutputBytes, scope: 'step' } satisfies TruncatedOutput;
    const left = Math.max(0, this.limits.maxRunOutputBytes - this.used);
    if (bytes > left) return { $truncated: true, bytes, limit: left, scope: 'run' } satisfies TruncatedOutput;
    this.used += bytes;
    return output;
  }
}
