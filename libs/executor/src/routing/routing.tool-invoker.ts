import { type Invocation, type PreparedCall, ToolInvoker } from '../runtime/tool-invoker.port';
import type { ExecutionRoutes } from './execution.routes';

/** Hands each call to the invoker of its tool's execution kind (`server`: plugin workers or in-process; later MCP, remote). */
export class RoutingToolInvoker extends ToolInvoker {
  constructor(private readonly routes: ExecutionRoutes) {
    super();
  }

  invoke(invocation: Invocation): Promise<unknown> {
    return this.routes.handlersFor(invocation.toolId, invocation.version).invoker.invoke(invocation);
  }

  override prepare(call: PreparedCall, signal: AbortSignal): Promise<void> {
    return this.routes.handlersFor(call.toolId, call.version).invoker.prepare(call, signal);
  }

  override release(call: PreparedCall): void {
    this.routes.handlersFor(call.toolId, call.version).invoker.release(call);
  }
}
