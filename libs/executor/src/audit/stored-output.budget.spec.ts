import { isTruncatedOutput, StoredOutputBudget } from './stored-output.budget';

const limits = { maxStepOutputBytes: 100, maxRunOutputBytes: 250 };
const ofSize = (bytes: number) => ({ t: 'x'.repeat(bytes - 8) }); // {"t":"…"} is 8 bytes of JSON around the text

describe('StoredOutputBudget', () => {
  it('keeps outputs within the step cap whole and counts them against the run cap', () => {
    const budget = new StoredOutputBudget(limits);
    expect(budget.store(ofSize(100))).toEqual(ofSize(100));
    expect(budget.store(ofSize(100))).toEqual(ofSize(100));
    // 50 bytes are left of the run's 250.
    expect(budget.store(ofSize(60))).toEqual({ $truncated: true, bytes: 60, limit: 50, scope: 'run' });
    expect(budget.store(ofSize(50))).toEqual(ofSize(50));
    expect(budget.store({})).toEqual({ $truncated: true, bytes: 2, limit: 0, scope: 'run' });
  });

  it('stores a marker with the size, never the value, for an output past the step cap; the marker uses none of the run cap', () => {
    const budget = new StoredOutputBudget(limits);
    const marker = budget.store({ secret: 'y'.repeat(500) });
    expect(marker).toEqual({ $truncated: true, bytes: 513, limit: 100, scope: 'step' });
    expect(JSON.stringify(marker)).not.toContain('yyy');
    expect(isTruncatedOutput(marker)).toBe(true);
    expect(budget.store(ofSize(100))).toEqual(ofSize(100));
  });

  it('counts in UTF-8 bytes, and a restored run counts what it already stored (markers aside)', () => {
    expect(new StoredOutputBudget(limits).store({ t: 'é'.repeat(50) })).toMatchObject({ $truncated: true, bytes: 108 });
    const step = (output: unknown) => ({ id: 's', tool: 't@1', status: 'SUCCEEDED' as const, attempts: 1, output, dependsOn: [], startedAt: null, durationMs: 0 });
    const restored = new StoredOutputBudget(limits, [step(ofSize(100)), step(ofSize(100)), step({ $truncated: true, bytes: 9999, limit: 100, scope: 'step' })]);
    expect(restored.store(ofSize(60))).toMatchObject({ $truncated: true, scope: 'run', limit: 50 });
    expect(restored.store(undefined)).toBeUndefined();
  });
});
