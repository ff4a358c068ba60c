/** JSON Schema 2020-12 document restricted to the subset in `schema-subset.ts`. */
export type JsonSchema = { [keyword: string]: unknown };

export type Risk = 'read' | 'write' | 'destructive';
export const RISK_ORDER: readonly Risk[] = ['read', 'write', 'destructive'];

export type ExecutionMode = 'server' | 'client' | 'remote' | 'mcp';

export interface ToolPermissions {
  /** Capabilities the tool needs, e.g. `net:fetch`, `fs:write`; they bound what `ctx` exposes. */
  scopes: string[];
  risk: Risk;
  requiresApproval?: boolean;
}

export interface ToolLimits {
  timeoutMs: number;
  maxConcurrency: number;
  retries: number;
  /** Safe to call twice with the same arguments; only idempotent tools are retried blindly. */
  idempotent: boolean;
  /** Largest result (JSON bytes) a call may return; the host's TOOLGATE_WORKER_MAX_OUTPUT_BYTES caps it. */
  maxOutputBytes?: number;
}

export interface ToolExample<Args = Record<string, unknown>, Output = unknown> {
  query: string;
  arguments: Args;
  output?: Output;
}

export interface ToolPrincipal {
  tenant: string;
  subject: string;
}

export interface ToolLogger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** The part of an OpenTelemetry span a tool may touch; keeps plugins free of an OTel dependency. */
export interface ToolSpan {
  setAttribute(key: string, value: string | number | boolean): unknown;
  addEvent(name: string, attributes?: Record<string, string | number | boolean>): unknown;
}

export interface ToolContext {
  signal: AbortSignal;
  logger: ToolLogger;
  span: ToolSpan;
  callId: string;
  idempotencyKey: string;
  principal: ToolPrincipal;
}

export type ToolHealthCheck = (signal: AbortSignal) => Promise<boolean | { healthy: boolean; detail?: string }>;

/** What a plugin declares for one tool. Data fields are hashed into the descriptor hash; functions are not. */
export interface ToolManifest<Args = Record<string, unknown>, Output = unknown> {
  name: string;
  title: string;
  /** What it does, when to use it and when not to: this text is what retrieval and planners read. */
  description: string;
  category: string[];
  tags: string[];
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  examples: ToolExample<Args, Output>[];
  permissions: ToolPermissions;
  limits: ToolLimits;
  /** Tool id (`namespace/name`) to call when this one fails or its breaker is open. */
  fallback?: string;
  /**
   * Tool ids (`namespace/name`) usually called with this one, before or after it (the search that turns
   * a name into the id this tool needs, the notification that follows it): a search that finds this tool
   * ranks those it also found right beside it.
   */
  companions?: string[];
  execution: ExecutionMode;
  // Method syntax on purpose: it keeps a tool typed with its own Args assignable to ToolManifest.
  healthCheck?(signal: AbortSignal): ReturnType<ToolHealthCheck>;
  run?(args: Args, ctx: ToolContext): Promise<Output> | Output;
}

export type ToolDefinition<Args = Record<string, unknown>, Output = unknown> = Omit<ToolManifest<Args, Output>, 'limits' | 'execution' | 'tags' | 'category' | 'examples'> & {
  limits?: Partial<ToolLimits>;
  execution?: ExecutionMode;
  tags?: string[];
  category?: string[];
  examples?: ToolExample<Args, Output>[];
};
