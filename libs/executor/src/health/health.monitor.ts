import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { CatalogService } from '@toolgate/registry';
import { BehaviorSubject, type Observable, type Subscription } from 'rxjs';
import { linkedSignal, unboundedListeners } from '../resilience/linked-signal.util';
import { DEFAULT_HEALTH_OPTIONS, type HealthOptions } from '../resilience/resilience.config';
import { untilAborted } from '../runtime/tool.errors';
import type { ToolHealthProbe } from './tool-health.probe';

/** The last verdict on one tool version. */
export interface ToolHealth {
  toolId: string;
  version: string;
  healthy: boolean;
  detail: string | null;
  checkedAt: string;
  /** Checks failed in a row (0 when healthy). */
  failures: number;
}

/** Which versions to check: every loaded version of the catalog's tools, again whenever the catalog changes. CatalogService fits. */
export type HealthTargets = Pick<CatalogService, 'activeTools' | 'changes$'>;

const key = (toolId: string, version: string) => `${toolId}@${version}`;

/**
 * Runs plugins' `healthCheck`s on a schedule (each bounded by a timeout; runs never overlap) and keeps
 * a verdict per tool version. A version without a check, or not checked yet, counts as healthy.
 * `unhealthy$` emits the set of unhealthy `toolId@version` keys whenever it changes, so retrieval can
 * leave them out and the runner can use their fallback; a version that passes again leaves the set.
 * A catalog change (a version approved, a worker's tools taking over) is checked at once, not at the
 * next tick: a verdict on what a version was before the change must not hold its calls back a whole interval.
 */
export class HealthMonitor implements OnApplicationShutdown {
  private readonly logger = new Logger('ToolHealth');
  private readonly verdicts = new Map<string, ToolHealth>();
  private readonly unhealthy = new BehaviorSubject<ReadonlySet<string>>(new Set());
  /** The unhealthy `toolId@version` keys; emits the current set on subscribe and after every change. */
  readonly unhealthy$: Observable<ReadonlySet<string>> = this.unhealthy.asObservable();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<ToolHealth[]> | undefined;
  /** The catalog changed during a round: what it checked may be stale, so another round follows. */
  private changedDuringRound = false;
  private catalogChanges: Subscription | undefined;
  /** Every check in flight listens on it (each removes its listener when done): as many as there are tool versions. */
  private readonly stopping = unboundedListeners(new AbortController());

  constructor(
    private readonly targets: HealthTargets,
    private readonly probe: ToolHealthProbe,
    private readonly options: HealthOptions = DEFAULT_HEALTH_OPTIONS,
  ) {}

  /** Checks now and then every `intervalMs`; the timer does not keep the process alive. */
  start(): void {
    if (this.timer || this.stopping.signal.aborted) return;
    this.timer = setInterval(() => void this.checkAll(), this.options.intervalMs);
    this.timer.unref();
    this.catalogChanges = this.targets.changes$.subscribe(() => this.recheck());
    void this.checkAll();
  }

  private recheck(): void {
    if (this.running) this.changedDuringRound = true;
    else void this.checkAll();
  }

  /** Stops the schedule, aborts checks in progress and waits for them to end. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    this.catalogChanges?.unsubscribe();
    this.stopping.abort();
    await this.running;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  isHealthy(toolId: string, version: string): boolean {
    return this.verdicts.get(key(toolId, version))?.healthy ?? true;
  }

  /** Versions that have a health check and have been checked. */
  snapshot(): ToolHealth[] {
    return [...this.verdicts.values()];
  }

  unhealthyVersions(): ReadonlySet<string> {
    return this.unhealthy.value;
  }

  /** One round over every loaded version; a round already running is joined instead of started twice. */
  checkAll(): Promise<ToolHealth[]> {
    if (this.running) return this.running;
    this.running = this.round().finally(() => {
      this.running = undefined;
      if (!this.changedDuringRound || this.stopping.signal.aborted) return;
      this.changedDuringRound = false;
      void this.checkAll();
    });
    return this.running;
  }

  private async round(): Promise<ToolHealth[]> {
    const versions = this.targets.activeTools().flatMap((tool) => tool.versions.filter((v) => v.loaded).map((v) => ({ toolId: tool.id, version: v.version })));
    const results = await Promise.all(versions.map(({ toolId, version }) => this.checkOne(toolId, version)));
    if (this.stopping.signal.aborted) return [];
    const checked = results.filter((r): r is ToolHealth => r !== undefined);
    this.publish();
    return checked;
  }

  private async checkOne(toolId: string, version: string): Promise<ToolHealth | undefined> {
    const { signal: deadline, dispose } = linkedSignal([this.stopping.signal], this.options.timeoutMs);
    let healthy: boolean;
    let detail: string | null;
    try {
      const verdict = await untilAborted(this.probe.check(toolId, version, deadline), deadline);
      if (verdict === undefined) return undefined;
      healthy = verdict.healthy;
      detail = verdict.detail ?? null;
    } catch (error) {
      if (this.stopping.signal.aborted) return undefined;
      healthy = false;
      detail = deadline.aborted ? `health check did not answer within ${this.options.timeoutMs} ms` : `health check threw: ${(error as Error).message}`;
    } finally {
      dispose();
    }
    const previous = this.verdicts.get(key(toolId, version));
    const result: ToolHealth = { toolId, version, healthy, detail, checkedAt: new Date().toISOString(), failures: healthy ? 0 : (previous?.failures ?? 0) + 1 };
    this.verdicts.set(key(toolId, version), result);
    if (previous?.healthy !== healthy && (previous || !healthy)) {
      this.logger[healthy ? 'log' : 'warn']({ tool: key(toolId, version), detail }, healthy ? 'tool version healthy again' : 'tool version unhealthy');
    }
    return result;
  }

  private publish(): void {
    const now = new Set([...this.verdicts.values()].filter((v) => !v.healthy).map((v) => key(v.toolId, v.version)));
    const before = this.unhealthy.value;
    if (now.size !== before.size || [...now].some((k) => !before.has(k))) this.unhealthy.next(now);
  }
}
