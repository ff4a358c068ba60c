import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { CatalogService } from '@toolgate/registry';
import { descriptorHash, ErrorCode, parseToolRef, ToolgateError, type ToolLogger, type ToolManifest, type ToolSpan } from '@toolgate/sdk';
import { type CallSinks, type LoadRequest, pluginEntry, type WorkerProfile, type WorkerRequest, workerProfile } from '@toolgate/sdk/sandbox';
import type { HealthVerdict, ToolHealthProbe } from '../health/tool-health.probe';
import { DEFAULT_ISOLATION_OPTIONS, type IsolationOptions } from '../resilience/resilience.config';
import { type Invocation, type PreparedCall, ToolInvoker } from '../runtime/tool-invoker.port';
import { PluginWorkerPool, SpareWorkers } from './plugin-worker.pool';

/** What the invoker needs of the catalog: a version's manifest, the folder of the package that ships it and the code it loaded. CatalogService fits. */
export type PluginCodeLookup = Pick<CatalogService, 'manifest' | 'packageDir' | 'packageCode'>;

const NO_SPAN: ToolSpan = { setAttribute: () => undefined, addEvent: () => undefined };

interface LocatedTool {
  manifest: ToolManifest;
  name: string;
  entry: string;
  hash: string;
  /** What its workers may do, from the tool's scopes and the package's declared environment. */
  profile: WorkerProfile;
}

/** The pool key part for calls that belong to no tenant (health checks, warm-up). */
const PLATFORM = '';

/**
 * Runs plugin code in worker processes, one small pool per plugin package version, tenant and
 * permission profile, so a runaway can be stopped and nothing crosses tenants: a tool that ignores
 * its aborted signal past the grace period, loops forever or exhausts its heap loses its worker, which
 * is replaced; other pools keep serving. Arguments and outputs cross as bounded JSON frames.
 *
 * Per-tenant pools are the chosen trade-off between a fresh process per call (no state survives any
 * call, but every call pays a process start and module load) and shared workers (cheapest, but one
 * tenant's call can leave state another tenant's call sees): state can only cross calls of the same
 * tenant. When a package's code changes (reload, approval, upgrade in place), its pools are retired and
 * the next call starts workers that load the code the catalog pinned.
 *
 * Scopes bound what a worker process may do, enforced by Node's permission model and the network
 * guard: without `net:fetch` no network at all (fetch, http, https, net and tls all refuse); with it,
 * only hosts in TOOLGATE_WORKER_NET_HOSTS when set. Without `fs:read`/`fs:write` it reads only what
 * loading its package needs and writes nowhere; without a `proc:*` scope it cannot start processes or
 * threads. Its environment holds only the variables its package declares (`toolgate.env`).
 * The timeout itself comes from the caller's signal (ResilientToolInvoker aborts it per attempt).
 */
export class IsolatedToolInvoker extends ToolInvoker implements ToolHealthProbe, OnApplicationShutdown {
  private readonly logger = new Logger('IsolatedTools');
  private readonly pools = new Map<string, { pool: PluginWorkerPool; entry: string; generation: number; lastUsed: number }>();
  /** Workers `prepare` reserved, by call id, until the call runs or is released. */
  private readonly reserved = new Map<string, { pool: PluginWorkerPool; worker: Awaited<ReturnType<PluginWorkerPool['reserve']>> }>();
  private readonly spares = new Map<string, { spares: SpareWorkers; entry: string; generation: number }>();
  private readonly located = new Map<string, LocatedTool>();
  /** Bumped per package entry when its code changes; pools of an older generation are retired. */
  private readonly generations = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly catalog: PluginCodeLookup,
    private readonly options: IsolationOptions = DEFAULT_ISOLATION_OPTIONS,
  ) {
    super();
    this.sweeper = setInterval(() => this.stopIdlePools(), Math.max(1000, Math.floor(options.idleMs / 2)));
    this.sweeper.unref();
  }

  async invoke(invocation: Invocation): Promise<unknown> {
    const tool = this.locate(invocation.toolId, invocation.version);
    const id = `${invocation.toolId}@${invocation.version}`;
    const sinks: CallSinks = { logger: this.toolLogger(id, invocation.callId), span: invocation.span ?? NO_SPAN };
    const reservation = this.reserved.get(invocation.callId);
    this.reserved.delete(invocation.callId);
    const pool = reservation?.pool ?? this.pool(tool, invocation.principal.tenant);
    const run = (request: WorkerRequest) => (reservation ? pool.callOn(reservation.worker, request, invocation.signal, sinks) : pool.call(request, invocation.signal, sinks));
    return run({
      type: 'run',
      callId: invocation.callId,
      tool: tool.name,
      descriptorHash: tool.hash,
      arguments: invocation.arguments,
      scopes: [...tool.manifest.permissions.scopes],
      idempotencyKey: invocation.idempotencyKey,
      principal: { tenant: invocation.principal.tenant, subject: invocation.principal.subject },
      maxOutputBytes: Math.min(tool.manifest.limits.maxOutputBytes ?? this.options.maxOutputBytes, this.options.maxOutputBytes),
    });
  }

  /** Reserves a worker with the tool loaded (starting one, or waiting for a free one), so the call's timeout starts with a ready worker. */
  override async prepare(call: PreparedCall, signal: AbortSignal): Promise<void> {
    const tool = this.locate(call.toolId, call.version);
    const pool = this.pool(tool, call.principal.tenant);
    const worker = await pool.reserve(this.loadRequest(tool), signal, { logger: this.toolLogger(`${call.toolId}@${call.version}`, 'warm-up'), span: NO_SPAN });
    this.reserved.set(call.callId, { pool, worker });
  }

  override release(call: PreparedCall): void {
    const reservation = this.reserved.get(call.callId);
    if (!reservation) return;
    this.reserved.delete(call.callId);
    reservation.pool.giveBack(reservation.worker);
  }

  /** Runs the version's healthCheck in its package's worker pool (a hanging check is terminated like a hanging call). */
  async check(toolId: string, version: string, signal: AbortSignal): Promise<HealthVerdict | undefined> {
    const tool = this.locate(toolId, version);
    if (!tool.manifest.healthCheck) return undefined;
    const sinks: CallSinks = { logger: this.toolLogger(`${toolId}@${version}`, 'health'), span: NO_SPAN };
    const callId = `health:${toolId}@${version}:${Date.now()}`;
    return (await this.pool(tool, PLATFORM).call(
      { type: 'health', callId, tool: tool.name, descriptorHash: tool.hash, scopes: [...tool.manifest.permissions.scopes] },
      signal,
      sinks,
    )) as HealthVerdict;
  }

  /**
   * Starts a spare worker of the version's package with the tool loaded, so the first call of any
   * tenant does not wait for process start and module loading (the server does this at boot for the
   * active tools; every spare taken is replaced).
   */
  async warm(toolId: string, version: string): Promise<void> {
    const tool = this.locate(toolId, version);
    await this.sparesFor(tool).fill(this.loadRequest(tool), { logger: this.toolLogger(`${toolId}@${version}`, 'warm-up'), span: NO_SPAN });
  }

  /** Warms every given version, a few at a time, logging (not throwing) what fails to start. */
  async warmAll(versions: readonly { toolId: string; version: string }[]): Promise<void> {
    const queue = [...versions];
    const startOne = async (): Promise<void> => {
      for (let next = queue.shift(); next && !this.closed; next = queue.shift()) {
        await this.warm(next.toolId, next.version).catch((error: unknown) => this.logger.warn({ tool: `${next.toolId}@${next.version}`, err: error }, 'warm-up failed'));
      }
    };
    await Promise.all([startOne(), startOne()]);
  }

  /** Live worker processes per plugin entry, over all tenants (for tests and metrics). */
  workerCounts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const { entry, pool } of this.pools.values()) counts[entry] = (counts[entry] ?? 0) + pool.size;
    return counts;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    await Promise.all([...[...this.pools.values()].map(({ pool }) => pool.close()), ...[...this.spares.values()].map(({ spares }) => spares.close())]);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.close();
  }

  private pool(tool: LocatedTool, tenant: string): PluginWorkerPool {
    if (this.closed) throw new ToolgateError(ErrorCode.UNAVAILABLE, 'the executor is shutting down');
    const { profile } = tool;
    const generation = this.generations.get(tool.entry) ?? 0;
    // Per version too: npm installs every version of a package at one path, and a worker holds the code of the version it loaded.
    const key = JSON.stringify([tool.entry, profile.version, profile.code?.hash, tenant, profile.readPaths.includes('*'), profile.write, profile.spawn, profile.addons, generation]);
    let held = this.pools.get(key);
    if (!held) {
      const spares = this.sparesFor(tool);
      const sinks: CallSinks = { logger: this.toolLogger(tool.name, 'warm-up'), span: NO_SPAN };
      const refill = () => void spares.fill(this.loadRequest(tool), sinks).catch((error: unknown) => this.logger.warn({ entry: tool.entry, err: error }, 'spare worker failed to start'));
      held = { pool: new PluginWorkerPool(profile, this.options, { take: () => spares.take(), took: refill }), entry: tool.entry, generation, lastUsed: Date.now() };
      this.pools.set(key, held);
    }
    held.lastUsed = Date.now();
    return held.pool;
  }

  /** One set of spares per package version, profile and code generation: what a spare may do is fixed at its start. */
  private sparesFor(tool: LocatedTool): SpareWorkers {
    const generation = this.generations.get(tool.entry) ?? 0;
    const key = JSON.stringify([
      tool.entry,
      tool.profile.version,
      tool.profile.code?.hash,
      tool.profile.readPaths.includes('*'),
      tool.profile.write,
      tool.profile.spawn,
      tool.profile.addons,
      generation,
    ]);
    let held = this.spares.get(key);
    if (!held) {
      held = { spares: new SpareWorkers(tool.profile, this.options), entry: tool.entry, generation };
      this.spares.set(key, held);
    }
    return held.spares;
  }

  private loadRequest(tool: LocatedTool): LoadRequest {
    return { type: 'load', callId: `load:${tool.name}:${Date.now()}`, tool: tool.name, descriptorHash: tool.hash, scopes: [] };
  }

  /** The package's code changed: its workers hold the old module, so they finish what they run and stop. */
  private retire(entry: string): void {
    const generation = (this.generations.get(entry) ?? 0) + 1;
    this.generations.set(entry, generation);
    for (const [key, held] of this.pools) {
      if (held.entry !== entry || held.generation >= generation) continue;
      this.pools.delete(key);
      void held.pool.retire();
    }
    for (const [key, held] of this.spares) {
      if (held.entry !== entry || held.generation >= generation) continue;
      this.spares.delete(key);
      void held.spares.close();
    }
  }

  private stopIdlePools(): void {
    const before = Date.now() - this.options.idleMs;
    for (const [key, held] of this.pools) {
      if (held.lastUsed > before || !held.pool.quiet) continue;
      this.pools.delete(key);
      void held.pool.close();
    }
  }

  private locate(toolId: string, version: string): LocatedTool {
    const key = `${toolId}@${version}`;
    const manifest = this.catalog.manifest(toolId, version);
    const dir = this.catalog.packageDir(toolId, version);
    if (!manifest || !dir) throw new ToolgateError(ErrorCode.TOOL_NOT_FOUND, `tool ${key} is not loaded`);
    const code = this.catalog.packageCode(toolId, version);
    const cached = this.located.get(key);
    if (cached?.manifest === manifest && cached.profile.code?.hash === code?.hash) return cached;
    const { entry, toolgate } = pluginEntry(dir, key);
    const located: LocatedTool = { manifest, name: parseToolRef(toolId).name, entry, hash: descriptorHash(manifest), profile: workerProfile(manifest, { version, dir, entry, code }, toolgate) };
    if (cached && (cached.hash !== located.hash || cached.profile.code?.hash !== located.profile.code?.hash)) this.retire(entry);
    this.located.set(key, located);
    return located;
  }

  private toolLogger(tool: string, callId: string): ToolLogger {
    const fields = (extra?: Record<string, unknown>) => ({ tool, callId, ...extra });
    return {
      debug: (message, extra) => this.logger.debug(fields(extra), message),
      info: (message, extra) => this.logger.log(fields(extra), message),
      warn: (message, extra) => this.logger.warn(fields(extra), message),
      error: (message, extra) => this.logger.error(fields(extra), message),
    };
  }
}
