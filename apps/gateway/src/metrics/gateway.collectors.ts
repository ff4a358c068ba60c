import { Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { RunStore } from '@toolgate/executor';
import { collectDefaultMetrics, Gauge, register } from 'prom-client';
import { SyncToolIndexUseCase } from '../use-cases/sync-tool-index.use-case';

/** What the gauges below read at scrape time; set by the one GatewayCollectors of the process. */
interface Sources {
  pendingApprovals: RunStore['pendingApprovals'];
  indexSynced: () => boolean;
}

let sources: Sources | null = null;

// Read from the database at each scrape: approvals wait across restarts and replicas, so every
// replica reports the same numbers (aggregate with max, not sum).
// Registered for their collect(): prom-client reads them at each scrape.
new Gauge({
  name: 'toolgate_approvals_pending',
  help: 'Steps waiting for approval, per tenant (from the shared database: every replica reports the same; aggregate with max).',
  labelNames: ['tenant'] as const,
  async collect() {
    await collectApprovals(this);
  },
});

const approvalOldestWait = new Gauge({
  name: 'toolgate_approval_oldest_wait_seconds',
  help: 'How long the oldest step waiting for approval has waited, per tenant.',
  labelNames: ['tenant'] as const,
});

new Gauge({
  name: 'toolgate_index_synced',
  help: '1 once this process has synced the tool index with the catalog (searches see every active tool), else 0.',
  collect() {
    this.set(sources?.indexSynced() ? 1 : 0);
  },
});

async function collectApprovals(pending: Gauge<'tenant'>): Promise<void> {
  pending.reset();
  approvalOldestWait.reset();
  if (!sources) return;
  const now = Date.now();
  for (const row of await sources.pendingApprovals()) {
    pending.set({ tenant: row.tenant }, row.pending);
    approvalOldestWait.set({ tenant: row.tenant }, Math.max(0, (now - row.oldestRequestedAt) / 1000));
  }
}

let defaultsCollected = false;

/**
 * The gateway's share of /metrics: Node's process metrics (memory, CPU, event loop lag, GC) under
 * their standard names, and the gauges read at scrape time from the run store and the index sync.
 * The libraries' own counters and histograms live beside the code they measure.
 */
@Injectable()
export class GatewayCollectors implements OnModuleInit, OnApplicationShutdown {
  constructor(
    private readonly runs: RunStore,
    private readonly indexSync: SyncToolIndexUseCase,
  ) {}

  onModuleInit(): void {
    if (!defaultsCollected) {
      collectDefaultMetrics();
      defaultsCollected = true;
    }
    sources = { pendingApprovals: () => this.runs.pendingApprovals(), indexSynced: () => this.indexSync.ready };
  }

  onApplicationShutdown(): void {
    sources = null;
  }

  /** The whole exposition, in Prometheus text format. */
  scrape(): Promise<string> {
    return register.metrics();
  }

  get contentType(): string {
    return register.contentType;
  }
}
