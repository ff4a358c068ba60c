import { Counter, Gauge, Histogram } from 'prom-client';

/**
 * Prometheus instruments of the retrieval side, registered once per process in prom-client's default
 * registry (the gateway serves it at /metrics). Label values are bounded: stage and driver names, and
 * the `kind`/`result` enums below.
 */

/** Stages of one search, timed on their own: `embedding` runs beside `lexical`, so `total` is less than their sum. */
export type SearchStage = 'embedding' | 'lexical' | 'semantic' | 'fusion' | 'rerank' | 'total';

const SEARCH_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export const searchStageSeconds = new Histogram({
  name: 'toolgate_search_stage_duration_seconds',
  help: 'Time of each stage of a tool search (embedding, lexical, semantic, fusion, rerank, total), per index driver.',
  labelNames: ['stage', 'driver'] as const,
  buckets: SEARCH_BUCKETS,
});

export const searchesTotal = new Counter({
  name: 'toolgate_searches_total',
  help: 'Tool searches by outcome: hits, no_match, or degraded (answered before every vector was in).',
  labelNames: ['driver', 'outcome'] as const,
});

export const indexDocuments = new Gauge({
  name: 'toolgate_index_documents',
  help: 'Tool documents in the index this process searches.',
  labelNames: ['driver'] as const,
});

export const indexVectorsPending = new Gauge({
  name: 'toolgate_index_vectors_pending',
  help: 'Indexed tool documents still waiting for their vector (searched by BM25 only until then).',
  labelNames: ['driver'] as const,
});

export const embeddingCacheLookups = new Counter({
  name: 'toolgate_embedding_cache_lookups_total',
  help: 'Distinct texts looked up in the embedding cache, by kind (query, document) and where the vector came from: memory, store (persisted document vectors) or miss (embedded by the model).',
  labelNames: ['kind', 'result'] as const,
});

/** Times the stages of one search and records them once it is over. */
export class SearchStageTimer {
  private readonly elapsedMs = new Map<SearchStage, number>();
  private readonly started = performance.now();

  /** Adds the time `work` takes to `stage` (a stage met once per clause sums its clauses). */
  async time<T>(stage: SearchStage, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.add(stage, performance.now() - started);
    }
  }

  timeSync<T>(stage: SearchStage, work: () => T): T {
    const started = performance.now();
    try {
      return work();
    } finally {
      this.add(stage, performance.now() - started);
    }
  }

  record(driver: string): void {
    this.add('total', performance.now() - this.started);
    for (const [stage, ms] of this.elapsedMs) searchStageSeconds.observe({ stage, driver }, ms / 1000);
  }

  private add(stage: SearchStage, ms: number): void {
    this.elapsedMs.set(stage, (this.elapsedMs.get(stage) ?? 0) + ms);
  }
}
