import { readFileSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { CatalogService } from '@toolgate/registry';
import { descriptorHash, ErrorCode, parseToolRef, ToolgateError, type ToolLogger, type ToolManifest, type ToolSpan } from '@toolgate/sdk';
import type { HealthVerdict, ToolHealthProbe } from '../health/tool-health.probe';
import { DEFAULT_ISOLATION_OPTIONS, type IsolationOptions } from '../resilience/resilience.config';
import { type Invocation, ToolInvoker } from '../runtime/tool-invoker.port';
import { type CallSinks, PluginWorkerPool } from './plugin-worker.pool';

/** What the invoker needs of the catalog: a version's manifest and the folder of the package that ships it. CatalogService fits. */
export type PluginCodeLookup = Pick<CatalogService, 'manifest' | 'packageDir'>;

const NO_SPAN: ToolSpan = { setAttribute: () => undefined, addEvent: () => undefined };

interface LocatedTool {
  manifest: ToolManifest;
  name: string;
  entry: string;
  hash: string;
}

/**
 * Runs plugin code in worker threads, one small pool per plugin package version, so a runaway can be
 * stopped: a tool that ignores its aborted signal past the grace period, loops forever or exhausts
 * its heap (`resourceLimits`) loses its worker, which is replaced; other packages' workers, and other
 * workers of the same package, keep serving. Arguments and outputs cross as plain JSON.
 *
 * Scopes bound what the worker lets a tool do: without `net:fetch` it gets no network at all
 * (fetch, http, https, net and tls all refuse); with it, only hosts in TOOLGATE_WORKER_NET_HOSTS when set.
 * The timeout itself comes from the caller's signal (ResilientToolInvoker aborts it per attempt).
 */
export class IsolatedToolInvoker extends ToolInvoker implements ToolHealthProbe, OnApplicationShutdown {
  private readonly logger = new Logger('IsolatedTools');
  private readonly pools = new Map<string, PluginWorkerPool>();
  private readonly located = new Map<string, LocatedTool>();
  private closed = false;

  constructor(
    private readonly catalog: PluginCodeLookup,
    private readonly options: IsolationOptions = DEFAULT_ISOLATION_OPTIONS,
  ) {
    super();
  }

  async invoke(invocation: Invocation): Promise<unknown> {
    const tool = this.locate(invocation.toolId, invocation.version);
    const id = `${invocation.toolId}@${invocation.version}`;
    const sinks: CallSinks = { logger: this.toolLogger(id, invocation.callId), span: invocation.span ?? NO_SPAN };
    return this.pool(tool.entry).call(
      {
        type: 'run',
        callId: invocation.callId,
        tool: tool.name,
        descriptorHash: tool.hash,
        arguments: invocation.arguments,
        scopes: [...tool.manifest.permissions.scopes],
        idempotencyKey: invocation.idempotencyKey,
        principal: { tenant: invocation.principal.tenant, subject: invocation.principal.subject },
      },
      invocation.signal,
      sinks,
    );
  }

  /** Boots and loads a worker when the package has none idle, so the call's timeout starts with a ready worker. */
  override async prepare(toolId: string, version: string, signal: AbortSignal): Promise<void> {
    const tool = this.locate(toolId, version);
    const pool = this.pool(tool.entry);
    if (!pool.needsWorker) return;
    const sinks: CallSinks = { logger: this.toolLogger(`${toolId}@${version}`, 'warm-up'), span: NO_SPAN };
    await pool.call({ type: 'load', callId: `load:${toolId}@${version}:${Date.now()}`, tool: tool.name, descriptorHash: tool.hash, scopes: [] }, signal, sinks);
  }

  /** Runs the version's healthCheck in its package's worker pool (a hanging check is terminated like a hanging call). */
  async check(toolId: string, version: string, signal: AbortSignal): Promise<HealthVerdict | undefined> {
    const tool = this.locate(toolId, version);
    if (!tool.manifest.healthCheck) return undefined;
    const sinks: CallSinks = { logger: this.toolLogger(`${toolId}@${version}`, 'health'), span: NO_SPAN };
    const callId = `health:${toolId}@${version}:${Date.now()}`;
    return (await this.pool(tool.entry).call({ type: 'health', callId, tool: tool.name, descriptorHash: tool.hash, scopes: [...tool.manifest.permissions.scopes] }, signal, sinks)) as HealthVerdict;
  }

  /**
   * Boots a worker of the version's package and loads the tool in it, so the first call does not pay
   * for thread start and module loading inside its timeout (call at startup for the tools in use).
   */
  async warm(toolId: string, version: string): Promise<void> {
    const tool = this.locate(toolId, version);
    const sinks: CallSinks = { logger: this.toolLogger(`${toolId}@${version}`, 'warm-up'), span: NO_SPAN };
    await this.pool(tool.entry).call({ type: 'load', callId: `load:${toolId}@${version}:${Date.now()}`, tool: tool.name, descriptorHash: tool.hash, scopes: [] }, new AbortController().signal, sinks);
  }

  /** Live worker threads per plugin entry (for tests and metrics). */
  workerCounts(): Record<string, number> {
    return Object.fromEntries([...this.pools].map(([entry, pool]) => [entry, pool.size]));
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.pools.values()].map((p) => p.close()));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.close();
  }

  private pool(entry: string): PluginWorkerPool {
    if (this.closed) throw new ToolgateError(ErrorCode.UNAVAILABLE, 'the executor is shutting down');
    let pool = this.pools.get(entry);
    if (!pool) {
      pool = new PluginWorkerPool(entry, this.options);
      this.pools.set(entry, pool);
    }
    return pool;
  }

  private locate(toolId: string, version: string): LocatedTool {
    const key = `${toolId}@${version}`;
    const manifest = this.catalog.manifest(toolId, version);
    const dir = this.catalog.packageDir(toolId, version);
    if (!manifest || !dir) throw new ToolgateError(ErrorCode.TOOL_NOT_FOUND, `tool ${key} is not loaded`);
    const cached = this.located.get(key);
    if (cached?.manifest === manifest) return cached;
    const packageJson = JSON.parse(readFileSync(resolve(dir, 'package.json'), 'utf8')) as { toolgate?: { tools?: string } };
    const entry = resolve(dir, packageJson.toolgate?.tools ?? '');
    const inside = relative(dir, entry);
    if (!packageJson.toolgate?.tools || inside.startsWith('..') || isAbsolute(inside)) {
      throw new ToolgateError(ErrorCode.PLUGIN_INVALID, `${key}: package.json in ${dir} no longer names a tools entry inside the package`);
    }
    const located = { manifest, name: parseToolRef(toolId).name, entry, hash: descriptorHash(manifest) };
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
