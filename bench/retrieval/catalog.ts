import { join } from 'node:path';
import type { IndexedTool, ToolDocument } from '@toolgate/retrieval';
import { type EvalQuery, type EvalTool, evalToolDocument, readEvalQueries, readEvalTools } from '@toolgate/retrieval/evaluation';

/**
 * Synthetic catalogs derived from the shared evaluation sets, deterministic for a seed: the base pool
 * is every Seal-Tools and MetaTool tool (namespaced, so ids never collide); larger catalogs add
 * variants of base tools with another namespace, a perturbed description and a perturbed vector.
 */

/** `../shared/datasets` beside the checkout (this file runs from bench/dist/retrieval). */
export const DATASETS_DIR = join(__dirname, '..', '..', '..', '..', 'shared', 'datasets');

/** How far a variant's vector moves from its base tool's: per-dimension gaussian noise, then re-normalised. */
export const VARIANT_NOISE_SIGMA = 0.02;

export interface BenchQuery {
  qid: string;
  set: string;
  query: string;
  /** Catalog ids of the gold tools. */
  gold: string[];
}

export interface Datasets {
  base: ToolDocument[];
  queries: BenchQuery[];
}

/** mulberry32: a small seeded PRNG, enough for reproducible sampling and noise. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal from two uniforms (Box-Muller). */
function gaussian(random: () => number): number {
  const u = Math.max(random(), Number.EPSILON);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

function shuffle<T>(items: T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const namespaced = (namespace: string, tool: EvalTool): ToolDocument => ({ ...evalToolDocument(tool), id: `${namespace}/${tool.id}` });

/**
 * Loads the base pool and a seeded sample of real queries: `perSet` Seal-Tools `test_out_domain` and
 * `perSet` MetaTool `single` queries. The base pool is ordered so the gold tools of the sampled
 * queries come first: a 1k catalog still holds every tool its queries ask for.
 */
export async function loadDatasets(dir: string, perSet: number, seed: number): Promise<Datasets> {
  const random = rng(seed);
  const sets = [
    { dir: 'seal_tools', namespace: 'seal', split: 'test_out_domain' },
    { dir: 'metatool_toole', namespace: 'metatool', split: 'single' },
  ];
  const tools: ToolDocument[] = [];
  const queries: BenchQuery[] = [];
  for (const set of sets) {
    const raw = await readEvalTools(join(dir, set.dir, 'eval', 'tools.jsonl'));
    tools.push(...raw.map((tool) => namespaced(set.namespace, tool)));
    const all = await readEvalQueries(join(dir, set.dir, 'eval', 'queries.jsonl'), new Set(raw.map((t) => t.id)));
    const split = all.filter((q: EvalQuery) => q.split === set.split);
    for (const q of shuffle(split, random).slice(0, perSet)) {
      queries.push({ qid: `${set.namespace}:${q.qid}`, set: `${set.dir}/${set.split}`, query: q.query, gold: q.gold.map((id) => `${set.namespace}/${id}`) });
    }
  }
  const gold = new Set(queries.flatMap((q) => q.gold));
  const shuffled = shuffle(tools, random);
  const base = [...shuffled.filter((t) => gold.has(t.id)), ...shuffled.filter((t) => !gold.has(t.id))];
  return { base, queries };
}

const QUALIFIERS = [
  'for EU tenants',
  'v2 API',
  'with response caching',
  'batch mode',
  'read-only mirror',
  'legacy endpoint',
  'beta channel',
  'for enterprise accounts',
  'rate limited',
  'sandbox environment',
  'regional replica',
  'community edition',
];

/**
 * Variant `round` (>= 1) of a base tool: a new namespace, about 12% of the description's words
 * dropped, a 4-8 word fragment of another tool's description and a qualifier appended. Deterministic
 * for (seed, round, position).
 */
function variantDoc(base: ToolDocument, other: ToolDocument, round: number, random: () => number): ToolDocument {
  const words = base.description.split(/\s+/).filter(Boolean);
  const kept = words.filter(() => random() >= 0.12);
  const otherWords = other.description.split(/\s+/).filter(Boolean);
  const length = 4 + Math.floor(random() * 5);
  const start = Math.floor(random() * Math.max(1, otherWords.length - length));
  const fragment = otherWords.slice(start, start + length).join(' ');
  const qualifier = QUALIFIERS[Math.floor(random() * QUALIFIERS.length)];
  const description = `${(kept.length >= 3 ? kept : words).join(' ')}. Also ${fragment} (${qualifier}).`;
  return { ...base, id: `syn${round}/${base.id.slice(base.id.indexOf('/') + 1)}`, description };
}

/** The base vector plus seeded gaussian noise, re-normalised to unit length. */
export function perturb(vector: Float32Array, random: () => number, sigma = VARIANT_NOISE_SIGMA): Float32Array {
  const out = new Float32Array(vector.length);
  let norm = 0;
  for (let i = 0; i < vector.length; i++) {
    out[i] = vector[i] + sigma * gaussian(random);
    norm += out[i] * out[i];
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < out.length; i++) out[i] /= norm;
  return out;
}

/**
 * A catalog of `size` tools: the first `min(size, base.length)` base tools with their real vectors,
 * then variants round by round (round r gives every base tool its r-th variant) until `size`.
 * Ids within a catalog are unique (a base id appears once per namespace). `baseVectors[i]` is the
 * real embedding of `base[i]`.
 */
export function* catalog(size: number, base: ToolDocument[], baseVectors: Float32Array[], seed: number): Generator<IndexedTool> {
  const random = rng(seed ^ 0x5eed);
  for (let i = 0; i < Math.min(size, base.length); i++) yield { doc: base[i], vectors: [baseVectors[i]] };
  for (let n = base.length, round = 1; n < size; round++) {
    for (let i = 0; i < base.length && n < size; i++, n++) {
      const other = base[Math.floor(random() * base.length)];
      yield { doc: variantDoc(base[i], other, round, random), vectors: [perturb(baseVectors[i], random)] };
    }
  }
}
