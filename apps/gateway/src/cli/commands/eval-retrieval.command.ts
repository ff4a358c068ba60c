import { createRetriever, DEFAULT_COMPANIONS, DEFAULT_DECOMPOSITION, type FunnelOptions, retrievalEnvSchema, retrievalOptionsFromEnv } from '@toolgate/retrieval';
import { evaluateRetrieval, type RetrievalEvalResult, readEvalQueries, readEvalTools, readToolGraph } from '@toolgate/retrieval/evaluation';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { type Command, InvalidArgumentError } from 'commander';
import { datasetPath, fraction, kList, positiveInt } from '../cli.options';
import { printJson, printTable } from '../cli.output';
import { PerSampleWriter } from '../eval-run.options';
import { fetchLocalModelIfMissing } from '../local-model.fetch';

interface EvalRetrievalFlags {
  tools: string;
  queries: string;
  split?: string;
  trainSplit?: string;
  trainFraction?: number;
  seed: number;
  driver: 'embedded' | 'elasticsearch';
  embedder: string;
  k: number[];
  reranker: string;
  decomposition: string;
  companions: string;
  graph?: string;
  sample?: number;
  /** With `score`: a seeded draw of the queries to tune on, the rest held out (sets without a dev split). */
  tuningFraction?: number;
  score?: 'tuning' | 'holdout';
  perSample?: string;
  json?: boolean;
}

export function registerEvalRetrievalCommand(evaluation: Command): void {
  evaluation
    .command('retrieval')
    .description('Recall@k, nDCG@k, MRR, Comp@k and latency of tool retrieval on tools.jsonl + queries.jsonl')
    .requiredOption('--tools <file>', 'tools.jsonl: {id, name, description, text?} per line')
    .requiredOption('--queries <file>', 'queries.jsonl: {qid, query, gold[], split} per line')
    .option('--split <name>', "the split to score (default: the first query's split)")
    .option('--train-split <name>', 'learn usage examples from this split first')
    .option('--train-fraction <f>', 'learn from this seeded fraction of --split and score the rest', fraction)
    .option('--seed <n>', 'seed of the --train-fraction draw', positiveInt, 42)
    .option('--driver <name>', 'index driver', 'embedded')
    .option('--embedder <name>', 'embedding driver: local (the in-process model), none (lexical only) or hashing', 'local')
    .option('--k <list>', 'cut-offs, comma-separated', kList, [1, 3, 5, 10])
    .option('--reranker <name>', 'rerank stage: feature (lexical features), llm (OPENAI_API_KEY / OPENAI_BASE_URL, TOOLGATE_RERANK_MODEL) or none', 'feature')
    .option('--decomposition <on|off>', 'search the clauses of multi-part queries one by one', 'on')
    .option('--companions <on|off>', 'the strongest candidates pull up the tools they declare or the usage examples used with them', 'on')
    .option('--graph <file>', "a TaskBench tool graph (graph_desc.json): each link's source declares its target a companion")
    .option('--sample <n>', 'score only this many queries, a seeded draw (quick iteration)', positiveInt)
    .option('--tuning-fraction <f>', 'split the queries by a seeded draw: this fraction to tune on, the rest held out', fraction)
    .option('--score <part>', 'with --tuning-fraction: score the tuning part or the holdout (default)', (value: string) => {
      if (value !== 'tuning' && value !== 'holdout') throw new InvalidArgumentError('must be tuning or holdout');
      return value;
    })
    .option('--per-sample <file>', 'write one JSON line per scored query: qid, query, gold, hits (ids, best first), gold_ranks')
    .option('--json', 'print one JSON object only')
    .action(evalRetrieval);
}

/** A one-line progress bar on stderr, only when it is a terminal. */
function progressBar(label: string): ((done: number, total: number) => void) | undefined {
  if (!process.stderr.isTTY) return undefined;
  let last = 0;
  return (done, total) => {
    const now = Date.now();
    if (done !== total && now - last < 100) return;
    last = now;
    const width = 30;
    const filled = Math.round((done / total) * width);
    process.stderr.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}${done === total ? '\n' : ''}`);
  };
}

function toJsonReport(result: RetrievalEvalResult, flags: Pick<EvalRetrievalFlags, 'driver' | 'companions'>, funnel: FunnelOptions): Record<string, unknown> {
  return {
    ...result.metrics,
    queries: result.queries,
    split: result.split,
    tools: result.tools,
    train_queries: result.trainQueries,
    driver: flags.driver,
    embedder: result.embedder,
    reranker: result.reranker,
    decomposition: result.decomposition,
    companions: flags.companions,
    declared_companions: result.declaredCompanions,
    // The funnel settings scored, as the server reads them (TOOLGATE_RECALL_K, _FUSION_WEIGHTS, _RERANK_DEPTH, _MIN_SIMILARITY).
    funnel: { recall_k: funnel.recallK, fusion_weights: funnel.weights, rerank_depth: funnel.rerankDepth, min_similarity: funnel.minSimilarity },
    latency_ms: { p50: result.latencyMs.p50, p95: result.latencyMs.p95, mean: result.latencyMs.mean },
    index_ms: result.indexMs,
  };
}

async function evalRetrieval(flags: EvalRetrievalFlags): Promise<void> {
  if (flags.driver !== 'embedded' && flags.driver !== 'elasticsearch') {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `unknown driver "${flags.driver}" (available: embedded, elasticsearch)`, [{ path: '--driver', message: 'unknown driver' }]);
  }
  const esUrl = process.env.ELASTICSEARCH_URL;
  if (flags.driver === 'elasticsearch' && !esUrl) {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, 'the elasticsearch driver needs ELASTICSEARCH_URL', [{ path: 'ELASTICSEARCH_URL', message: 'not set' }]);
  }
  if (!['local', 'none', 'hashing'].includes(flags.embedder)) {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `unknown embedder "${flags.embedder}" (available: local, none, hashing)`, [{ path: '--embedder', message: 'unknown embedder' }]);
  }
  if (!['feature', 'llm', 'none'].includes(flags.reranker)) {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `unknown reranker "${flags.reranker}" (available: feature, llm, none)`, [{ path: '--reranker', message: 'unknown reranker' }]);
  }
  for (const [flag, value] of [
    ['--decomposition', flags.decomposition],
    ['--companions', flags.companions],
  ]) {
    if (!['on', 'off'].includes(value)) throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `${flag} must be on or off, not "${value}"`, [{ path: flag, message: 'must be on or off' }]);
  }
  // The LLM reranker reads the same endpoint settings as the server (validated there too).
  const parsed = retrievalEnvSchema.safeParse({ ...process.env, TOOLGATE_RERANKER: flags.reranker });
  if (!parsed.success) {
    const details = parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
    throw new ToolgateError(ErrorCode.INVALID_CONFIG, `invalid environment for --reranker ${flags.reranker}`, details);
  }
  const env = parsed.data;
  const listed = await readEvalTools(datasetPath(flags.tools, '--tools'));
  const tools = flags.graph ? await readToolGraph(datasetPath(flags.graph, '--graph'), listed) : listed;
  const queries = await readEvalQueries(datasetPath(flags.queries, '--queries'), new Set(tools.map((t) => t.id)));
  const split = flags.split ?? queries[0].split;
  // The server's settings (model folder and threads, LLM endpoint, the funnel's TOOLGATE_* knobs), with the flags' choices and a scratch index.
  const server = retrievalOptionsFromEnv(env);
  const funnel: FunnelOptions = { ...server.funnel, decomposition: flags.decomposition === 'on' ? DEFAULT_DECOMPOSITION : null, companions: flags.companions === 'on' ? DEFAULT_COMPANIONS : null };
  const options = {
    ...server,
    driver: flags.driver,
    elasticsearch: esUrl ? { node: esUrl, indexPrefix: 'toolgate-eval' } : undefined,
    embedder: flags.embedder as 'local' | 'none' | 'hashing',
    funnel,
    reranker: flags.reranker as 'feature' | 'llm' | 'none',
  };
  fetchLocalModelIfMissing(options);
  const perSample = PerSampleWriter.open(flags.perSample);
  const retriever = await createRetriever(options);
  const result = await evaluateRetrieval(retriever, tools, queries, {
    split,
    trainSplit: flags.trainSplit,
    trainFraction: flags.trainFraction,
    seed: flags.seed,
    sample: flags.sample,
    tuning: flags.tuningFraction === undefined ? undefined : { fraction: flags.tuningFraction, score: flags.score ?? 'holdout' },
    ks: flags.k,
    onProgress: progressBar(`scoring ${split}`),
    onIndexProgress: progressBar(`embedding ${tools.length} tools`),
    onQuery: perSample ? ({ goldRanks, ...rest }) => perSample.write({ ...rest, gold_ranks: goldRanks }) : undefined,
  }).finally(() => {
    perSample?.close();
    return retriever.index.close();
  });
  if (flags.json) return printJson(toJsonReport(result, flags, funnel));
  const pct = (v: number | undefined) => (v === undefined ? '-' : (100 * v).toFixed(1));
  process.stdout.write(
    `${result.queries} queries of split "${split}" over ${result.tools} tools (driver ${flags.driver}, embedder ${result.embedder}, reranker ${result.reranker}, decomposition ${result.decomposition}, companions ${flags.companions}${result.trainQueries ? `, ${result.trainQueries} training queries as usage examples` : ''})\n`,
  );
  printTable(
    ['k', 'Recall@k', 'nDCG@k', 'Comp@k'],
    flags.k.map((k) => [k, pct(result.metrics[`recall@${k}`]), pct(result.metrics[`ndcg@${k}`]), pct(result.metrics[`comp@${k}`])]),
  );
  process.stdout.write(`MRR ${pct(result.metrics.mrr)}   latency p50 ${result.latencyMs.p50.toFixed(2)} ms, p95 ${result.latencyMs.p95.toFixed(2)} ms   indexing ${result.indexMs.toFixed(0)} ms\n`);
}
