import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ErrorCode, ToolgateError, type ToolManifest } from '@toolgate/sdk';
import type { HealthVerdict, ToolHealthProbe } from '../health/tool-health.probe';
import type { ExecutionKind, ExecutionRoute, ExecutionRouteContext, ExecutionRouteHandlers } from './execution-route.types';

/** The routes this executor serves, by execution kind; built once from the module's route list. */
@Injectable()
export class ExecutionRoutes implements ToolHealthProbe, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ExecutionRoutes');
  private readonly byKind = new Map<ExecutionKind, ExecutionRouteHandlers>();

  constructor(
    routes: readonly ExecutionRoute[],
    private readonly context: ExecutionRouteContext,
  ) {
    for (const route of routes) {
      if (this.byKind.has(route.kind)) throw new ToolgateError(ErrorCode.INVALID_CONFIG, `two execution routes for "${route.kind}" tools`);
      this.byKind.set(route.kind, route.create(context));
    }
  }

  /** Whether this server runs the manifest's code (a `client` tool's caller runs it; a kind without a route is never called). */
  runs(manifest: ToolManifest): boolean {
    return this.byKind.has(manifest.execution);
  }

  /** The handlers for a loaded tool version; INVALID_PLAN for a kind the server does not run. */
  handlersFor(toolId: string, version: string): ExecutionRouteHandlers {
    const manifest = this.context.catalog.manifest(toolId, version);
    if (!manifest) throw new ToolgateError(ErrorCode.TOOL_NOT_FOUND, `tool ${toolId}@${version} is not loaded`);
    const handlers = this.byKind.get(manifest.execution);
    if (!handlers) throw new ToolgateError(ErrorCode.INVALID_PLAN, `${toolId}@${version} is a ${manifest.execution} tool: the server does not run its code`);
    return handlers;
  }

  check(toolId: string, version: string, signal: AbortSignal): Promise<HealthVerdict | undefined> {
    return this.handlersFor(toolId, version).probe.check(toolId, version, signal);
  }

  /** Runs after the registry's bootstrap (this module imports it), so the catalog is loaded. */
  onApplicationBootstrap(): void {
    for (const [kind, handlers] of this.byKind) void handlers.start?.().catch((error: unknown) => this.logger.warn({ kind, err: error }, 'execution route failed to start'));
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.byKind.values()].map((handlers) => handlers.close?.()));
  }
}
