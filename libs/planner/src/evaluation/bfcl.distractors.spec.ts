import { withDistractors } from './bfcl.distractors';
import type { BfclSample } from './bfcl.reader';

const fn = (name: string) => ({ name, description: `${name} tool`, parameters: { type: 'dict', properties: {} } });
const samples: BfclSample[] = [
  { id: 'a', text: 'first', functions: [fn('alpha'), fn('shared')] },
  { id: 'b', text: 'second', functions: [fn('beta'), fn('shared')] },
  { id: 'c', text: 'third', functions: [fn('gamma')] },
];

describe('withDistractors', () => {
  it('adds functions from the other samples, never one the sample has by name, the same draw every run', () => {
    const padded = withDistractors(samples, 2);
    expect(padded.map((s) => s.functions.length)).toEqual([4, 4, 3]);
    for (const [i, sample] of padded.entries()) {
      const names = sample.functions.map((f) => f.name);
      expect(new Set(names).size).toBe(names.length);
      expect(names.slice(0, samples[i].functions.length)).toEqual(samples[i].functions.map((f) => f.name));
    }
    expect(withDistractors(samples, 2)).toEqual(padded);
  });

  it('adds at most what the other samples hold, and nothing for a count of 0', () => {
    expect(
      withDistractors(samples, 99)[2]
        .functions.map((f) => f.name)
        .sort(),
    ).toEqual(['alpha', 'beta', 'gamma', 'shared']);
    expect(withDistractors(samples, 0)).toEqual(samples);
  });
});
