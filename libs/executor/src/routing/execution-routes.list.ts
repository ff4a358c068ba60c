import { mcpExecutionRoute } from '../mcp/mcp.execution-route';
import { remoteExecutionRoute } from '../remote/remote.execution-route';
import { serverExecutionRoute } from '../runtime/server.execution-route';
import type { ExecutionRoute } from './execution-route.types';

/** The execution kinds the server runs, one line each; a kind not listed is never called. */
export const EXECUTION_ROUTES: readonly ExecutionRoute[] = [serverExecutionRoute, mcpExecutionRoute, remoteExecutionRoute];
