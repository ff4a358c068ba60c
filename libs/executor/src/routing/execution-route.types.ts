import type { CatalogService, McpConnections, RemoteWorkers } from '@toolgate/registry';
import type { ToolManifest } from '@toolgate/sdk';
import type { ExecutorModuleOptions } from '../executor.config';
import type { ToolHealthProbe } from '../health/tool-health.probe';
import type { ToolInvoker } from '../runtime/tool-invoker.port';

export type ExecutionKind = ToolManifest['execution'];

/** What a route's invoker may read: the catalog (manifests, package folders) and the executor's validated options. */
export interface ExecutionRouteContext {
  catalog: CatalogService;
  options: ExecutorModuleOptions;
  /** The registry's connections to MCP servers (the `mcp` route calls through them). */
  mcp: McpConnections;
  /** The registry's remote tool workers over NATS (the `remote` route calls through them). */
  remote: RemoteWorkers;
}

/** How the calls of one execution kind are carried out, and how that kind's health checks run. */
export interface ExecutionRouteHandlers {
  invoker: ToolInvoker;
  probe: ToolHealthProbe;
  /** Readies what the first calls need (e.g. warm workers) once the catalog has loaded; not awaited by boot. */
  start?: () => Promise<void>;
  /** Releases what the invoker holds (workers, connections); called once at shutdown. */
  close?: () => Promise<void>;
}

/**
 * One execution kind the server can run (`server`, `mcp`, `remote`). A kind
 * without a route is never called: the plan validator refuses its steps.
 */
export interface ExecutionRoute {
  readonly kind: ExecutionKind;
  create(context: ExecutionRouteContext): ExecutionRouteHandlers;
}
