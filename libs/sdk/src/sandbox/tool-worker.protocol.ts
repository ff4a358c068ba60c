/** Messages between IsolatedToolInvoker and a plugin worker process, as JSON frames: only plain data crosses. */

export interface WorkerBoot {
  /** Absolute path of the plugin package's tools entry. */
  entry: string;
  /** The package version this worker serves, and where its package.json is: npm installs every version of a package into one folder. */
  version: string;
  packageJson: string;
  /** The code tree the catalog loaded for this version and its hash; null when it was too large to hash. */
  code: { root: string; hash: string } | null;
  /** Host globs a `net:fetch` tool may connect to; empty = no restriction beyond the plugin's own. */
  netHosts: string[];
  /** Built sdk entry, for the descriptor-hash check. */
  sdk: string;
}

export interface RunRequest {
  type: 'run';
  callId: string;
  tool: string;
  /** Descriptor hash pinned by the catalog: the worker refuses code whose manifest changed on disk since. */
  descriptorHash: string;
  arguments: Record<string, unknown>;
  scopes: string[];
  idempotencyKey: string;
  principal: { tenant: string; subject: string };
  /** Largest output (JSON bytes) this call may return; larger is OUTPUT_TOO_LARGE, measured in the worker. */
  maxOutputBytes: number;
}

export interface HealthRequest {
  type: 'health';
  callId: string;
  tool: string;
  descriptorHash: string;
  scopes: string[];
}

/** Only loads and verifies the tool (warm-up). */
export interface LoadRequest extends Omit<HealthRequest, 'type'> {
  type: 'load';
}

export type WorkerRequest = RunRequest | HealthRequest | LoadRequest;

export interface AbortRequest {
  type: 'abort';
  callId: string;
  reason: 'TIMEOUT' | 'CANCELLED';
}

export interface SerializedError {
  name: string;
  message: string;
  /** A ToolgateError's code, or a system error's (ECONNREFUSED, ...). */
  code?: string;
  details?: { path: string; message: string }[];
  transient?: boolean;
  causeCode?: string;
}

export type WorkerReply =
  | { type: 'result'; callId: string; ok: true; value: unknown }
  | { type: 'result'; callId: string; ok: false; error: SerializedError }
  | { type: 'log'; callId: string; level: 'debug' | 'info' | 'warn' | 'error'; message: string; fields?: Record<string, unknown> }
  | { type: 'span'; callId: string; attribute?: [string, string | number | boolean]; event?: { name: string; attributes?: Record<string, string | number | boolean> } };
