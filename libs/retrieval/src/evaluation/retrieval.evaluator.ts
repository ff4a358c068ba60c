import { createHash } from 'node:crypto';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { withUsageQueries } from '../documents/tool.document';
import type { ToolRetriever } from '../funnel/tool.retriever';
import { type EvalQuery, type EvalTool, evalToolDocument } from './eval-dataset.reader';
import { type RetrievalReport, RetrievalScorer } from './retrieval.metrics';

export interface RetrievalEvalOptions {
  /** The split to score. */
  split: string;
  /** Every query of this split becomes a usage example before scoring. */
  trainSplit?: string;
  /** Instead: this fraction of `split` (chosen by a seeded hash of the qid) becomes usage examples; the rest is scored. */
  trainFraction?: number;
  seed?: number;
  /**
   * Tuning draw for a set without a development split: this fraction of `split` (a seeded hash of the
   * qid) is the tuning part; `score` picks which part is scored, so settings tuned on one are reported on the other.
   */
  tuning?: { fraction: number; score: 'tuning' | 'holdout' };
  /** Score only this many of the scored queries, drawn with the seed (quick iteration on a large set). */
  sample?: number;
  ks: number[];
  onProgress?: (done: number, total: number) => void;
  /** Tools embedded so far while the set is indexed. */
  onIndexProgress?: (done: number, total: number) => void;
  /** Hears each scored query with the ids the funnel returned, best first. */
  onQuery?: (record: RetrievalQueryRecord) => void;
}

export interface RetrievalQueryRecord {
  qid: string;
  query: string;
  gold: string[];
  hits: string[];
  /** 1-based rank of each gold tool among the hits, null when it is not among them. */
  goldRanks: (number | null)[];
}

export interface RetrievalEvalResult extends RetrievalReport {
  split: string;
  embedder: string;
  reranker: string;
  /** Whether multi-part queries were split into clauses. */
  decomposition: 'on' | 'off';
  tools: number;
  /** Companion links the tools declare. */
  declaredCompanions: number;
  trainQueries: number;
  indexMs: number;
}

/** Deterministic per-qid draw in [0,1), so a seeded split is the same on every machine. */
const draw = (qid: string, seed: number) => createHash('sha256').update(`${seed}:${qid}`).digest().readUInt32BE(0) / 2 ** 32;

/**
 * Scores a retriever on a labelled set. Learning from usage only ever reads the training queries it is
 * given: the scored queries never reach the index.
 */
export async function evaluateRetrieval(retriever: ToolRetriever, tools: EvalTool[], queries: EvalQuery[], options: RetrievalEvalOptions): Promise<RetrievalEvalResult> {
  if (options.trainSplit !== undefined && options.trainFraction !== undefined) {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, 'give either a training split or a training fraction, not both', [{ path: '/trainFraction', message: 'conflicts with trainSplit' }]);
  }
  const inSplit = queries.filter((q) => q.split === options.split);
  if (inSplit.length === 0) {
    const splits = [...new Set(queries.map((q) => q.split))].join(', ');
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `no queries in split "${options.split}" (splits: ${splits})`, [{ path: '/split', message: 'unknown split' }]);
  }
  const seed = options.seed ?? 42;
  let train: EvalQuery[] = [];
  let scored = inSplit;
  if (options.trainSplit !== undefined) {
    if (options.trainSplit === options.split)
      throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, 'the training split must differ from the scored split', [{ path: '/trainSplit', message: 'same as split' }]);
    train = queries.filter((q) => q.split === options.trainSplit);
    if (train.length === 0) throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `no queries in training split "${options.trainSplit}"`, [{ path: '/trainSplit', message: 'unknown split' }]);
  } else if (options.trainFraction !== undefined) {
    train = inSplit.filter((q) => draw(q.qid, seed) < (options.trainFraction as number));
    scored = inSplit.filter((q) => draw(q.qid, seed) >= (options.trainFraction as number));
  }
  if (options.tuning) {
    const { fraction, score } = options.tuning;
    // Its own draw, independent of the training and sample draws.
    scored = scored.filter((q) => draw(q.qid, seed + 2) < fraction === (score === 'tuning'));
  }
  if (options.sample !== undefined && options.sample < scored.length) {
    // Another draw than the training one, so the sample is not skewed towards either side of it.
    const order = new Map(scored.map((q) => [q.qid, draw(q.qid, seed + 1)]));
    const kept = new Set(
      [...order]
        .sort((a, b) => a[1] - b[1])
        .slice(0, options.sample)
        .map(([qid]) => qid),
    );
    scored = scored.filter((q) => kept.has(q.qid));
  }

  const learned = new Map<string, string[]>();
  for (const q of train)
    for (const id of q.gold) {
      const queries = learned.get(id);
      if (queries) queries.push(q.query);
      else learned.set(id, [q.query]);
    }
  const docs = tools.map((t) => withUsageQueries(evalToolDocument(t), learned.get(t.id) ?? []));

  const indexStarted = performance.now();
  // A persistent index (Elasticsearch) may hold another set's tools: they must not compete.
  const wanted = new Set(docs.map((d) => d.id));
  await retriever.index.remove((await retriever.index.ids()).filter((id) => !wanted.has(id)));
  await retriever.indexTools(docs, options.onIndexProgress);
  const indexMs = performance.now() - indexStarted;

  const k = Math.max(...options.ks);
  const scope = [{ idGlob: '**', maxRisk: 'destructive' as const }];
  const scorer = new RetrievalScorer(options.ks);
  for (const [i, q] of scored.entries()) {
    const started = performance.now();
    const { hits } = await retriever.search(q.query, k, { scope });
    const ids = hits.map((h) => h.id);
    scorer.add(ids, q.gold, performance.now() - started);
    options.onQuery?.({ qid: q.qid, query: q.query, gold: q.gold, hits: ids, goldRanks: q.gold.map((id) => (ids.includes(id) ? ids.indexOf(id) + 1 : null)) });
    options.onProgress?.(i + 1, scored.length);
  }
  return {
    ...scorer.report(),
    split: options.split,
    embedder: retriever.model,
    reranker: retriever.reranker?.name ?? 'none',
    decomposition: retriever.decomposes ? 'on' : 'off',
    tools: tools.length,
    declaredCompanions: tools.reduce((n, t) => n + (t.companions?.length ?? 0), 0),
    trainQueries: train.length,
    indexMs,
  };
}
