import { createHash } from 'node:crypto';
import type { BfclFunction, BfclSample } from './bfcl.reader';

/**
 * Each sample's own functions plus `count` functions drawn from the other samples of the set (never one
 * its own set already has by name), the same draw for the same sample every run. BFCL offers a request
 * only the few functions written for it (one, for every irrelevance sample); a server's planner sees
 * the retrieval funnel's top candidates, most of them beside the point. Distractors measure selection
 * and abstention in that setting.
 */
export function withDistractors(samples: readonly BfclSample[], count: number): BfclSample[] {
  if (count <= 0) return [...samples];
  const pool = new Map<string, BfclFunction>();
  for (const sample of samples) for (const fn of sample.functions) if (!pool.has(fn.name)) pool.set(fn.name, fn);
  const all = [...pool.values()];
  return samples.map((sample) => {
    const own = new Set(sample.functions.map((fn) => fn.name));
    const others = all.filter((fn) => !own.has(fn.name));
    // A stable shuffle: each function ranked by a hash of the sample id and its name.
    const rank = (fn: BfclFunction) => createHash('sha256').update(`${sample.id}\u0000${fn.name}`).digest().readUInt32BE(0);
    const drawn = others
      .map((fn) => ({ fn, key: rank(fn) }))
      .sort((a, b) => a.key - b.key || a.fn.name.localeCompare(b.fn.name))
      .slice(0, count)
      .map(({ fn }) => fn);
    return { ...sample, functions: [...sample.functions, ...drawn] };
  });
}
