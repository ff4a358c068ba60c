/**
 * Retrieval benchmark: indexing and query latency of both ToolIndex drivers at 1k, 10k and 100k
 * synthetic tools, embedding time apart, embedded-driver memory, Elasticsearch overhead over the raw
 * round trip, and top-5 agreement between drivers. Prints one JSON object and keeps it under
 * bench/retrieval/results/. See bench/retrieval/README.md.
 *
 *   npm run bench:retrieval -- [--sizes 1000,10000,100000] [--drivers embedded,elasticsearch] [--queries 200]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { arch, cpus, hostname, loadavg, platform, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, type estypes } from '@elastic/elasticsearch';
import {
  CachedEmbedder,
  createReranker,
  createToolIndex,
  DEFAULT_FUNNEL,
  type ElasticsearchToolIndex,
  type Embedder,
  type IndexedTool,
  OnnxWorkerPool,
  type RankedHit,
  retrievalEnvSchema,
  retrievalOptionsFromEnv,
  ToolIndex,
  ToolRetriever,
  type ToolSearchFilter,
} from '@toolgate/retrieval';
import { type BenchQuery, catalog, DATASETS_DIR, loadDatasets, perturb, rng, VARIANT_NOISE_SIGMA } from './catalog';
import { gc, type LatencyStats, latency, mb, ratio, round, timed } from './stats';

type Driver = 'embedded' | 'elasticsearch';

const REPO = join(__dirname, '..', '..', '..');
const RESULTS_DIR = join(REPO, 'bench', 'retrieval', 'results');
/** Everything visible: the benchmark measures search, not policy. */
const FILTER: ToolSearchFilter = { scope: [{ idGlob: '**', maxRisk: 'destructive' }] };
const K = 5;
const RECALL_K = DEFAULT_FUNNEL.recallK;
/** ES for the benchmark only: a state dir of its own (never the test suite's node) and a 1 GB heap with the full JIT. */
const ES_STATE = join(tmpdir(), 'toolgate-bench-es');
const ES_JAVA_OPTS = process.env.BENCH_ES_JAVA_OPTS ?? '-Xms1g -Xmx1g';

const log = (message: string) => process.stderr.write(`bench:retrieval ${new Date().toISOString().slice(11, 19)} ${message}\n`);

function options() {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '1000,10000,100000' },
      drivers: { type: 'string', default: 'embedded,elasticsearch' },
      queries: { type: 'string', default: '200' },
      seed: { type: 'string', default: '42' },
      warmup: { type: 'string', default: '20' },
      concurrency: { type: 'string', default: '1,10,50' },
      datasets: { type: 'string', default: DATASETS_DIR },
      'es-max-size': { type: 'string' },
      'es-index-timeout': { type: 'string', default: '480' },
      'no-write': { type: 'boolean', default: false },
    },
  });
  const sizes = String(values.sizes)
    .split(',')
    .map((s) => Number(s.trim()))
    .sort((a, b) => a - b);
  if (sizes.some((s) => !Number.isInteger(s) || s <= 0)) throw new Error(`--sizes must be positive integers: ${values.sizes}`);
  const drivers = String(values.drivers)
    .split(',')
    .map((d) => d.trim());
  for (const d of drivers) if (d !== 'embedded' && d !== 'elasticsearch') throw new Error(`unknown driver ${d} (embedded, elasticsearch)`);
  const concurrency = String(values.concurrency)
    .split(',')
    .map((c) => Number(c.trim()));
  if (concurrency.some((c) => !Number.isInteger(c) || c <= 0)) throw new Error(`--concurrency must be positive integers: ${values.concurrency}`);
  return {
    sizes,
    drivers: drivers as Driver[],
    perSet: Number(values.queries),
    seed: Number(values.seed),
    warmup: Number(values.warmup),
    concurrency,
    datasets: String(values.datasets),
    esMaxSize: values['es-max-size'] ? Number(values['es-max-size']) : Number.POSITIVE_INFINITY,
    esIndexTimeoutS: Number(values['es-index-timeout']),
    write: !values['no-write'],
  };
}

/** Catches the vectors ToolRetriever.indexTools computes, so base tools are embedded exactly as the app embeds them. */
class RecordingIndex extends ToolIndex {
  readonly driver = 'recording';
  readonly vectors = new Map<string, Float32Array[]>();
  async upsert(tools: IndexedTool[]): Promise<void> {
    for (const tool of tools) this.vectors.set(tool.doc.id, tool.vectors);
  }
  async remove(): Promise<void> {}
  async ids(): Promise<string[]> {
    return [...this.vectors.keys()];
  }
  async embeddingModel(): Promise<string | null> {
    return null;
  }
  async lexical(): Promise<RankedHit[]> {
    return [];
  }
  async semantic(): Promise<RankedHit[]> {
    return [];
  }
  async ping(): Promise<void> {}
}

interface EsHandle {
  url: string;
  startedHere: boolean;
  javaOpts: string | null;
  version: string | null;
  heapMaxMb: number | null;
  client: Client;
}

function startElasticsearch(): string {
  mkdirSync(ES_STATE, { recursive: true, mode: 0o755 });
  log(`starting Elasticsearch (scripts/elasticsearch.sh, TMPDIR=${ES_STATE}, ES_JAVA_OPTS="${ES_JAVA_OPTS}")`);
  const out = execFileSync('bash', [join(REPO, 'scripts', 'elasticsearch.sh'), 'start'], {
    env: { ...process.env, TMPDIR: ES_STATE, ES_JAVA_OPTS },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = /ELASTICSEARCH_URL=(\S+)/.exec(out)?.[1];
  if (!url) throw new Error(`scripts/elasticsearch.sh start printed no URL: ${out}`);
  return url;
}

function stopElasticsearch(): void {
  spawnSync('bash', [join(REPO, 'scripts', 'elasticsearch.sh'), 'stop'], { env: { ...process.env, TMPDIR: ES_STATE }, stdio: ['ignore', 'ignore', 'inherit'] });
}

async function connectElasticsearch(): Promise<EsHandle> {
  const given = process.env.ELASTICSEARCH_URL;
  const url = given ?? startElasticsearch();
  const client = new Client({ node: url, requestTimeout: 120_000, maxRetries: 1 });
  let version: string | null = null;
  let heapMaxMb: number | null = null;
  try {
    const info = (await client.nodes.info({ metric: ['jvm'] })) as unknown as { nodes: Record<string, { version: string; jvm?: { mem?: { heap_max_in_bytes?: number } } }> };
    const node = Object.values(info.nodes)[0];
    version = node?.version ?? null;
    heapMaxMb = node?.jvm?.mem?.heap_max_in_bytes ? mb(node.jvm.mem.heap_max_in_bytes) : null;
  } catch {
    // informational only
  }
  return { url, startedHere: !given, javaOpts: given ? null : ES_JAVA_OPTS, version, heapMaxMb, client };
}

/** Memory of an embedded index of `size` tools, measured in a fresh process. */
function memoryProbe(args: { datasets: string; perSet: number; seed: number; size: number; vectorsFile: string; dims: number; model: string }): unknown {
  const result = spawnSync(
    process.execPath,
    [
      '--expose-gc',
      join(__dirname, 'memory-probe.js'),
      `--datasets=${args.datasets}`,
      `--queries=${args.perSet}`,
      `--seed=${args.seed}`,
      `--size=${args.size}`,
      `--vectors=${args.vectorsFile}`,
      `--dims=${args.dims}`,
      `--model=${args.model}`,
    ],
    { encoding: 'utf8', maxBuffer: 1 << 20 },
  );
  if (result.status !== 0) return { error: `memory probe failed (${result.status}): ${result.stderr.slice(-500)}` };
  return JSON.parse(result.stdout);
}

interface SideResults {
  latencies: number[];
  hits: string[][];
}

interface DriverRun {
  funnelTop5: string[][];
  lexicalTop5: string[][];
  semanticTop5: string[][];
  report: Record<string, unknown>;
}

const top = (hits: { id: string }[], k = K) => hits.slice(0, k).map((h) => h.id);

async function runDriver(
  driver: Driver,
  size: number,
  tools: IndexedTool[],
  queries: BenchQuery[],
  queryVectors: Float32Array[],
  embedder: Embedder,
  warmup: number,
  es: EsHandle | null,
  esIndexTimeoutS: number,
  concurrency: readonly number[],
): Promise<DriverRun> {
  const alias = `bench-retrieval-${size}`;
  const index: ToolIndex = createToolIndex({ driver, elasticsearch: es ? { node: es.url, indexPrefix: alias, requestTimeoutMs: 120_000 } : undefined });
  const report: Record<string, unknown> = { size, driver };
  try {
    gc();
    log(`${driver} ${size}: indexing`);
    const { ms } = await timed(() => {
      // Started inside the timer: the embedded driver does its work before its promise returns.
      const upsert = index.upsert(tools, embedder.model);
      if (driver !== 'elasticsearch') return upsert;
      // A driver call cannot be cancelled: past the deadline its promise is left to fail once the index is deleted.
      upsert.catch(() => undefined);
      return Promise.race([
        upsert,
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`indexing ${size} tools took longer than ${esIndexTimeoutS} s`)), esIndexTimeoutS * 1000).unref()),
      ]);
    });
    report.indexing = { ms: round(ms, 0), docsPerSecond: round((tools.length * 1000) / ms, 0) };
    if (driver === 'elasticsearch' && es) {
      const stats = (await es.client.indices.stats({ index: alias, metric: ['store', 'segments', 'docs', 'indexing', 'refresh', 'merge'] })) as estypes.IndicesStatsResponse;
      const total = stats._all.primaries;
      report.elasticsearchIndex = {
        tools: (await es.client.count({ index: alias })).count,
        luceneDocs: total?.docs?.count,
        segments: total?.segments?.count,
        storeMb: total?.store?.size_in_bytes ? mb(total.store.size_in_bytes) : null,
        // Server-side time (ES's own counters) inside the indexing wall time above: how much of it is HNSW/Lucene work.
        serverIndexMs: total?.indexing?.index_time_in_millis,
        serverRefreshMs: total?.refresh?.total_time_in_millis,
        serverMergeMs: total?.merges?.total_time_in_millis,
      };
    }
    // The funnel as the app builds it: clauses, fusion and the default rerank stage.
    const retriever = new ToolRetriever(index, embedder, DEFAULT_FUNNEL, createReranker({}));

    // Warm-up: JIT, connection pool, the driver's cached index state. Not measured.
    for (const [i, q] of queries.slice(0, warmup).entries()) {
      await retriever.search(q.query, K, FILTER);
      await index.lexical(q.query, RECALL_K, FILTER);
      await index.semantic(queryVectors[i], RECALL_K, FILTER, embedder.model);
    }

    // 1. The funnel as a caller sees it: query embedding (real model, no cache hit; clauses read from the same pass) + both sides + fusion + rerank.
    log(`${driver} ${size}: funnel x${queries.length}`);
    const funnel: SideResults = { latencies: [], hits: [] };
    let noMatch = 0;
    for (const q of queries) {
      gcEvery(funnel.latencies.length);
      const { ms: t, value } = await timed(() => retriever.search(q.query, K, FILTER));
      funnel.latencies.push(t);
      funnel.hits.push(top(value.hits));
      if (value.noMatch) noMatch++;
    }
    const recall = queries.reduce((sum, q, i) => sum + q.gold.filter((g) => funnel.hits[i].includes(g)).length / q.gold.length, 0) / queries.length;

    // 2. Each side alone (the semantic side gets the precomputed query vector); for ES, each interleaved with the raw request.
    log(`${driver} ${size}: lexical and semantic sides x${queries.length}${driver === 'elasticsearch' ? ' (with the raw ES requests side by side)' : ''}`);
    const lexical: SideResults = { latencies: [], hits: [] };
    const semantic: SideResults = { latencies: [], hits: [] };
    const rawLexical: SideResults = { latencies: [], hits: [] };
    const rawSemantic: SideResults = { latencies: [], hits: [] };
    const took = { lexical: [] as number[], semantic: [] as number[] };
    for (const [i, q] of queries.entries()) {
      gcEvery(i);
      const ours = async () => {
        const l = await timed(() => index.lexical(q.query, RECALL_K, FILTER));
        lexical.latencies.push(l.ms);
        lexical.hits.push(l.value.map((h) => h.id));
        const s = await timed(() => index.semantic(queryVectors[i], RECALL_K, FILTER, embedder.model));
        semantic.latencies.push(s.ms);
        semantic.hits.push(s.value.map((h) => h.id));
      };
      const raw = async () => {
        if (!es) return;
        // The driver's own request bodies, sent straight through the official client.
        const esIndex = index as ElasticsearchToolIndex;
        const lexicalBody = esIndex.lexicalRequest(q.query, RECALL_K, FILTER)?.request;
        if (lexicalBody) {
          const l = await timed(() => es.client.search(lexicalBody));
          rawLexical.latencies.push(l.ms);
          rawLexical.hits.push(l.value.hits.hits.map((h) => h._id as string));
          took.lexical.push(l.value.took);
        } else rawLexical.hits.push([]);
        const semanticBody = esIndex.semanticRequest(queryVectors[i], RECALL_K, FILTER, embedder.model);
        const s = await timed(() => es.client.search(semanticBody));
        rawSemantic.latencies.push(s.ms);
        rawSemantic.hits.push(s.value.hits.hits.map((h) => h._id as string));
        took.semantic.push(s.value.took);
      };
      // Alternate who goes first, so neither always meets a warmer cache.
      if (driver === 'elasticsearch' && i % 2 === 1) {
        await raw();
        await ours();
      } else {
        await ours();
        if (driver === 'elasticsearch') await raw();
      }
    }

    // 3. Many callers at once: each level runs every query once, `callers` searches in flight at any time.
    const concurrent = [];
    for (const callers of concurrency) {
      log(`${driver} ${size}: funnel x${queries.length} with ${callers} concurrent callers`);
      gc();
      concurrent.push(await concurrentFunnel(retriever, queries, callers));
    }
    report.concurrent = concurrent;

    const funnelStats = latency(funnel.latencies);
    report.query = {
      funnel: { ...funnelStats, queriesPerSecond: round(1000 / funnelStats.mean, 1) },
      lexical: latency(lexical.latencies),
      semantic: latency(semantic.latencies),
    };
    report.recallAt5 = round(recall, 3);
    report.noMatch = noMatch;
    if (driver === 'elasticsearch') {
      const same = (a: string[][], b: string[][]) => round(a.filter((ids, i) => ids.join() === b[i].join()).length / a.length, 3);
      const overhead = (ours: LatencyStats, raw: LatencyStats) => ({
        driver: { p50: ours.p50, p95: ours.p95, mean: ours.mean },
        raw: { p50: raw.p50, p95: raw.p95, mean: raw.mean },
        ratio: { p50: ratio(ours.p50, raw.p50), p95: ratio(ours.p95, raw.p95), mean: ratio(ours.mean, raw.mean) },
      });
      report.overhead = {
        lexical: { ...overhead(latency(lexical.latencies), latency(rawLexical.latencies)), esTookMs: latency(took.lexical), sameIdsAsDriver: same(lexical.hits, rawLexical.hits) },
        semantic: { ...overhead(latency(semantic.latencies), latency(rawSemantic.latencies)), esTookMs: latency(took.semantic), sameIdsAsDriver: same(semantic.hits, rawSemantic.hits) },
      };
    }
    return { funnelTop5: funnel.hits, lexicalTop5: lexical.hits.map((h) => h.slice(0, K)), semanticTop5: semantic.hits.map((h) => h.slice(0, K)), report };
  } finally {
    if (driver === 'elasticsearch' && es) await es.client.indices.delete({ index: `${alias}-*`, ignore_unavailable: true, allow_no_indices: true }).catch(() => undefined);
    await index.close();
  }
}

/**
 * `callers` loops that each take the next query until none is left, so `callers` searches are in flight
 * at any time; every query is distinct and the model has no cache here. Searches per second over the
 * wall time of all of them, and each search's latency as its caller waited for it.
 */
async function concurrentFunnel(retriever: ToolRetriever, queries: BenchQuery[], callers: number) {
  const latencies: number[] = [];
  let next = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (next < queries.length) {
        const q = queries[next++];
        latencies.push((await timed(() => retriever.search(q.query, K, FILTER))).ms);
      }
    }),
  );
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  // Cores kept busy by the whole process (the main thread, the model's worker thread and its ONNX threads).
  const coresBusy = round((cpu.user + cpu.system) / 1000 / wallMs, 2);
  return { callers, searches: queries.length, searchesPerSecond: round((queries.length * 1000) / wallMs, 1), coresBusy, latencyMs: latency(latencies) };
}

/** A full collection every 50 queries, between measurements: fewer GC pauses inside them. */
function gcEvery(i: number): void {
  if (i > 0 && i % 50 === 0) gc();
}

function agreement(a: string[][], b: string[][]) {
  const n = a.length;
  let ordered = 0;
  let sameSet = 0;
  let overlap = 0;
  for (let i = 0; i < n; i++) {
    if (a[i].join() === b[i].join()) ordered++;
    const setB = new Set(b[i]);
    const common = a[i].filter((id) => setB.has(id)).length;
    if (common === a[i].length && a[i].length === b[i].length) sameSet++;
    overlap += common / Math.max(1, Math.max(a[i].length, b[i].length));
  }
  return { sameTop5Set: round(sameSet / n, 3), sameTop5Order: round(ordered / n, 3), meanOverlapAt5: round(overlap / n, 3) };
}

function gitInfo() {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim();
    // The libraries are measured as built from the working tree: name what differs from the commit.
    const changed = execFileSync('git', ['status', '--porcelain', '--', 'libs/retrieval', 'libs/sdk'], { cwd: REPO, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map((line) => line.slice(3));
    return { commit, uncommittedInRetrievalOrSdk: changed };
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  const opts = options();
  const startedAt = new Date();
  const began = performance.now();
  if (!(globalThis as { gc?: unknown }).gc) log('warning: run with --expose-gc (npm run bench:retrieval does) for steadier numbers');
  const maxSize = opts.sizes[opts.sizes.length - 1];
  const hostKind = `${platform()}-${arch()}-${cpus().length}cpu`;
  const loadAtStart = loadavg().map((x) => round(x, 2));

  gc();
  const rssBeforeModel = process.memoryUsage().rss;
  // The server's model settings (TOOLGATE_MODEL_DIR, TOOLGATE_EMBEDDING_THREADS, TOOLGATE_EMBEDDING_WORKERS), so the funnel is timed as a caller meets it.
  const { modelDir, modelThreads, modelWorkers } = retrievalOptionsFromEnv(retrievalEnvSchema.parse(process.env));
  const embedder = await OnnxWorkerPool.create(modelDir, { threads: modelThreads, workers: modelWorkers });
  gc();
  const modelRssMb = mb(process.memoryUsage().rss - rssBeforeModel);
  const { base: pool, queries } = await loadDatasets(opts.datasets, opts.perSet, opts.seed);
  const base = pool.slice(0, Math.min(pool.length, maxSize));
  log(`${queries.length} queries, base pool ${pool.length} tools (${base.length} needed), model ${embedder.model}`);

  // Documents: the base pool embedded once with the real model, through the app's own path (ToolRetriever.indexTools, CachedEmbedder).
  log(`embedding ${base.length} base tools with the real model (about 30 docs/s on 2 cores)`);
  const recorder = new RecordingIndex();
  const docEmbedding = await timed(() => new ToolRetriever(recorder, new CachedEmbedder(embedder), DEFAULT_FUNNEL).indexTools(base));
  const baseVectors = base.map((doc) => (recorder.vectors.get(doc.id) as Float32Array[])[0]);
  log(`embedded in ${round(docEmbedding.ms / 1000, 1)} s`);

  // Queries: embedded one at a time (as a search does), uncached.
  const queryEmbedding: number[] = [];
  const queryVectors: Float32Array[] = [];
  const asPort: Embedder = embedder;
  for (const q of queries.slice(0, opts.warmup)) await asPort.embed([q.query], 'query');
  for (const q of queries) {
    const { ms, value } = await timed(() => asPort.embed([q.query], 'query'));
    queryEmbedding.push(ms);
    queryVectors.push(value[0]);
  }

  // How close a variant's vector stays to its base's.
  const random = rng(7);
  const cosines = baseVectors.slice(0, 200).map((v) => {
    const p = perturb(v, random);
    return v.reduce((s, x, i) => s + x * p[i], 0);
  });

  const scratch = mkdtempSync(join(tmpdir(), 'toolgate-bench-'));
  const vectorsFile = join(scratch, 'base-vectors.f32');
  const packed = new Float32Array(baseVectors.length * embedder.dimensions);
  for (const [i, v] of baseVectors.entries()) packed.set(v, i * embedder.dimensions);
  writeFileSync(vectorsFile, Buffer.from(packed.buffer));

  let es: EsHandle | null = null;
  const esNotes: string[] = [];
  const results: Record<string, unknown>[] = [];
  const agreements: Record<string, unknown>[] = [];
  const memory: Record<string, unknown>[] = [];
  let esCap = opts.esMaxSize;
  const stop = () => {
    if (es?.startedHere) stopElasticsearch();
    rmSync(scratch, { recursive: true, force: true });
  };
  process.once('SIGINT', () => {
    stop();
    process.exit(130);
  });
  try {
    if (opts.drivers.includes('elasticsearch')) {
      es = await connectElasticsearch();
      log(`Elasticsearch ${es.version ?? '?'} at ${es.url} (heap ${es.heapMaxMb ?? '?'} MB)`);
    }
    for (const size of opts.sizes) {
      const tools = [...catalog(size, base, baseVectors, opts.seed)];
      const byDriver = new Map<Driver, DriverRun>();
      if (opts.drivers.includes('embedded')) {
        log(`embedded ${size}: memory probe (child process)`);
        memory.push({ size, ...(memoryProbe({ datasets: opts.datasets, perSet: opts.perSet, seed: opts.seed, size, vectorsFile, dims: embedder.dimensions, model: embedder.model }) as object) });
      }
      for (const driver of opts.drivers) {
        if (driver === 'elasticsearch' && size > esCap) {
          esNotes.push(`elasticsearch skipped at ${size} tools (cap ${esCap})`);
          continue;
        }
        try {
          const run = await runDriver(driver, size, tools, queries, queryVectors, embedder, opts.warmup, es, opts.esIndexTimeoutS, opts.concurrency);
          byDriver.set(driver, run);
          results.push(run.report);
        } catch (error) {
          const message = error instanceof Error ? `${error.message}${error.cause instanceof Error ? ` (cause: ${error.cause.message})` : ''}` : String(error);
          log(`${driver} ${size} failed: ${message}`);
          results.push({ size, driver, error: message });
          if (driver === 'elasticsearch') {
            esCap = opts.sizes.filter((s) => s < size).pop() ?? 0;
            esNotes.push(`elasticsearch failed at ${size} tools (${message}); capped at ${esCap}`);
          } else throw error;
        }
      }
      const embedded = byDriver.get('embedded');
      const elastic = byDriver.get('elasticsearch');
      if (embedded && elastic) {
        agreements.push({
          size,
          funnel: agreement(embedded.funnelTop5, elastic.funnelTop5),
          lexical: agreement(embedded.lexicalTop5, elastic.lexicalTop5),
          semantic: agreement(embedded.semanticTop5, elastic.semanticTop5),
        });
      }
      tools.length = 0;
      gc();
    }
  } finally {
    stop();
  }

  const find = (size: number, driver: Driver) =>
    results.find((r) => r.size === size && r.driver === driver && !r.error) as
      | {
          query: { funnel: LatencyStats };
          concurrent?: { callers: number; searchesPerSecond: number }[];
          overhead?: { lexical: { ratio: { p50: number } }; semantic: { ratio: { p50: number } } };
        }
      | undefined;
  const target = (measured: number | null | undefined, limit: number) => (measured == null ? null : { measured, target: limit, met: measured <= limit });
  const atLeast = (measured: number | null | undefined, floor: number) => (measured == null ? null : { measured, target: floor, met: measured >= floor });
  const searchesPerSecond = (size: number, callers: number) => find(size, 'embedded')?.concurrent?.find((c) => c.callers === callers)?.searchesPerSecond;
  const output = {
    benchmark: 'retrieval',
    startedAt: startedAt.toISOString(),
    durationSeconds: round((performance.now() - began) / 1000, 0),
    host: {
      kind: hostKind,
      hostname: hostname(),
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      memoryGb: round(totalmem() / 2 ** 30, 1),
      node: process.version,
      loadAverageAtStart: loadAtStart,
      loadAverageAtEnd: loadavg().map((x) => round(x, 2)),
    },
    git: gitInfo(),
    config: {
      sizes: opts.sizes,
      drivers: opts.drivers,
      seed: opts.seed,
      queries: { total: queries.length, perSet: opts.perSet, sets: ['seal_tools/test_out_domain', 'metatool_toole/single'] },
      warmupQueries: opts.warmup,
      k: K,
      recallK: RECALL_K,
      funnel: DEFAULT_FUNNEL,
      reranker: createReranker({})?.name ?? 'none',
      filter: FILTER,
      concurrency: opts.concurrency,
    },
    model: { name: embedder.model, dimensions: embedder.dimensions, onnxThreads: modelThreads, workers: modelWorkers ?? 1, rssMb: modelRssMb },
    catalog: {
      basePool: pool.length,
      vectors: `real model for ${base.length} base tools; variants perturbed (base vector + gaussian noise sigma ${VARIANT_NOISE_SIGMA} per dimension, re-normalised; mean cosine to the base ${round(cosines.reduce((s, c) => s + c, 0) / cosines.length, 3)})`,
      variants: 'id syn<round>/<name>; description with ~12% of words dropped, a 4-8 word fragment of another tool and a qualifier appended',
    },
    embedding: {
      documents: {
        texts: base.length,
        seconds: round(docEmbedding.ms / 1000, 1),
        perSecond: round((base.length * 1000) / docEmbedding.ms, 1),
        path: 'ToolRetriever.indexTools -> CachedEmbedder(OnnxWorkerPool of ThreadedOnnxEmbedder), batches of 32',
      },
      query: latency(queryEmbedding),
    },
    elasticsearch: es
      ? {
          version: es.version,
          heapMaxMb: es.heapMaxMb,
          startedBy: es.startedHere ? `scripts/elasticsearch.sh with ES_JAVA_OPTS="${es.javaOpts}"` : 'given ELASTICSEARCH_URL',
          maxSize: Number.isFinite(esCap) ? esCap : null,
          notes: esNotes,
        }
      : null,
    results,
    memory: memory.length > 0 ? { driver: 'embedded', how: 'fresh process per size, global.gc() before and after, deltas over loading the datasets', sizes: memory } : null,
    agreement: agreements,
    targets: {
      'embedded funnel p50 at 10k (ms)': target(find(10_000, 'embedded')?.query.funnel.p50, 10),
      'embedded funnel p50 at 100k (ms)': target(find(100_000, 'embedded')?.query.funnel.p50, 60),
      'embedded searches/s, 50 concurrent callers at 1k': atLeast(searchesPerSecond(1000, 50), 300),
      ...Object.fromEntries(
        opts.sizes.flatMap((size) => {
          const overhead = find(size, 'elasticsearch')?.overhead;
          return overhead
            ? [
                [`elasticsearch lexical overhead p50 at ${size} (x raw)`, target(overhead.lexical.ratio.p50, 1.3)],
                [`elasticsearch semantic overhead p50 at ${size} (x raw)`, target(overhead.semantic.ratio.p50, 1.3)],
              ]
            : [];
        }),
      ),
      ...Object.fromEntries(
        agreements.map((a) => [
          `same top-5 at ${a.size} (fraction)`,
          { measured: (a.funnel as { sameTop5Set: number }).sameTop5Set, target: 0.9, met: (a.funnel as { sameTop5Set: number }).sameTop5Set >= 0.9 },
        ]),
      ),
    },
  };
  const json = JSON.stringify(output, null, 2);
  process.stdout.write(`${json}\n`);
  if (opts.write) {
    mkdirSync(RESULTS_DIR, { recursive: true });
    const day = startedAt.toISOString().slice(0, 10);
    let file = join(RESULTS_DIR, `${day}-${hostKind}.json`);
    for (let n = 2; existsSync(file); n++) file = join(RESULTS_DIR, `${day}-${hostKind}-${n}.json`);
    writeFileSync(file, `${json}\n`);
    log(`wrote ${file}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
