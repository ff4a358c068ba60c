import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { RunStore } from '../audit/run-store.port';
import { DEFAULT_EXECUTOR_OPTIONS, type ExecutorModuleOptions } from '../executor.config';
import { EXECUTOR_OPTIONS } from '../executor.module-definition';
import { PlanRunner } from './plan.runner';

const DAY_MS = 86_400_000;
/** Retention sweeps once at start and then hourly: runs age in days, so an hour late is no matter. */
const RETENTION_EVERY_MS = 3_600_000;

/**
 * Background work on runs. Every process keeps a heartbeat for the runs it holds (a CLI run too, so no
 * server takes it while it runs). With `storage.maintenance` (a server): recovery of runs a stopped
 * process left, at start and then with every heartbeat (a run left by a process that died moments ago
 * is recovered once its owner has been silent for STALE_HEARTBEATS heartbeats), and retention of
 * finished runs. Timers are unref'd: they never keep a process alive.
 */
@Injectable()
export class RunMaintenance implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('RunMaintenance');
  private readonly options: ExecutorModuleOptions['storage'];
  private readonly timers: NodeJS.Timeout[] = [];
  /** The round in progress, if any. */
  private round: Promise<unknown> | null = null;

  constructor(
    private readonly runner: PlanRunner,
    private readonly store: RunStore,
    @Inject(EXECUTOR_OPTIONS) options: Partial<ExecutorModuleOptions>,
  ) {
    this.options = { ...DEFAULT_EXECUTOR_OPTIONS.storage, ...options.storage };
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.options.maintenance) {
      this.every(this.options.heartbeatMs, () => this.beat());
      return;
    }
    await this.tick();
    await this.sweep();
    this.every(this.options.heartbeatMs, () => this.tick());
    if (this.options.retentionDays > 0) this.every(RETENTION_EVERY_MS, () => this.sweep());
  }

  private async beat(): Promise<void> {
    try {
      await this.store.heartbeat();
    } catch (error) {
      this.logger.error({ error: (error as Error).message }, 'run heartbeat failed');
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    await this.round;
  }

  /** Heartbeat, then recovery of orphans. */
  async tick(): Promise<void> {
    await this.beat();
    try {
      const { finished, restored } = await this.runner.recover();
      if (finished.length > 0 || restored.length > 0) {
        this.logger.warn({ finished: finished.length, restored: restored.length, runs: [...finished, ...restored].slice(0, 20) }, 'recovered runs a stopped process left');
      }
    } catch (error) {
      this.logger.error({ error: (error as Error).message }, 'recovering runs a stopped process left failed');
    }
  }

  /** Removes finished runs older than the retention. */
  async sweep(): Promise<number> {
    if (this.options.retentionDays === 0) return 0;
    try {
      const removed = await this.store.removeFinished(Date.now() - this.options.retentionDays * DAY_MS);
      this.logger.log({ removed, retentionDays: this.options.retentionDays }, `retention removed ${removed} finished run${removed === 1 ? '' : 's'}`);
      return removed;
    } catch (error) {
      this.logger.error({ error: (error as Error).message }, 'run retention failed');
      return 0;
    }
  }

  /** One round at a time: a tick that finds one still going is skipped rather than overlapping or queueing it. */
  private every(ms: number, work: () => Promise<unknown>): void {
    const timer = setInterval(() => {
      if (this.round) return;
      this.round = work().finally(() => {
        this.round = null;
      });
    }, ms);
    timer.unref();
    this.timers.push(timer);
  }
}
