import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { z } from 'zod';
import { ToolVersionState } from './persistence/tool-version.entity';
import type { RegistryModuleOptions } from './registry.module-definition';
import { DEFAULT_MCP_LIMITS } from './sources/mcp/mcp.connections';
import { DEFAULT_IMPORT_LIMITS } from './sources/npm/plugin.importer';
import { DEFAULT_REMOTE_TIMING, type NatsOptions } from './sources/remote/remote.workers';
import { DEFAULT_SUBJECT_PREFIX } from './sources/remote/remote-worker.protocol';
import { DEFAULT_USAGE_EXAMPLE_BOUNDS } from './usage/usage-example.service';

/** Environment the registry reads; validated once at boot by the gateway. */
export const registryEnvSchema = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  TOOLGATE_DATA_DIR: z.string().min(1).default('.toolgate'),
  TOOLGATE_PLUGIN_DIRS: z.string().optional(),
  TOOLGATE_CONFIG: z.string().min(1).optional(),
  TOOLGATE_NEW_VERSION_STATE: z.enum(ToolVersionState).default(ToolVersionState.ACTIVE),
  TOOLGATE_SESSION_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(16 * 1024 * 1024)
    .default(64 * 1024),
  /** How long importing one plugin package (in a process of its own) may take before it is PLUGIN_INVALID. */
  TOOLGATE_PLUGIN_IMPORT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  /** Where successful plugin imports are kept by the content of what they read, so a start skips a process per unchanged package; `off`: import every time. */
  TOOLGATE_PLUGIN_IMPORT_CACHE: z.string().min(1).optional(),
  /** Heap of a plugin's import process; a package that allocates past it at import is PLUGIN_INVALID. */
  TOOLGATE_PLUGIN_IMPORT_HEAP_MB: z.coerce.number().int().min(16).max(16_384).default(256),
  /** Connecting to one MCP server and listing its tools; a server silent past it is FAILED (and retried with backoff). */
  TOOLGATE_MCP_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(DEFAULT_MCP_LIMITS.connectTimeoutMs),
  /** Largest message an MCP server may send (a stdio line, an HTTP body, an SSE event). */
  TOOLGATE_MCP_MAX_MESSAGE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(256 * 1024 * 1024)
    .default(DEFAULT_MCP_LIMITS.maxMessageBytes),
  /** Per-tenant sessions kept open per MCP server (stdio: processes). */
  TOOLGATE_MCP_MAX_SESSIONS: z.coerce.number().int().min(1).max(1_000).default(DEFAULT_MCP_LIMITS.maxSessions),
  TOOLGATE_MCP_SESSION_IDLE_MS: z.coerce.number().int().min(1_000).default(DEFAULT_MCP_LIMITS.sessionIdleMs),
  /** NATS servers (comma-separated nats:// URLs) where remote tool workers announce themselves; unset: no remote workers. */
  TOOLGATE_NATS_URL: z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((url) => url.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.url({ protocol: /^(nats|tls|wss?)$/, error: 'must be a nats://, tls:// or ws(s):// URL' })).min(1))
    .optional(),
  TOOLGATE_NATS_USER: z.string().min(1).optional(),
  TOOLGATE_NATS_PASSWORD: z.string().min(1).optional(),
  /** Instead of user and password: the part's NATS user nkey seed (the server knows only its public key). */
  TOOLGATE_NATS_NKEY_SEED: z
    .string()
    .regex(/^SU[A-Z2-7]{56}$/, 'must be a NATS user nkey seed (58 characters starting with SU)')
    .optional(),
  /** Subject prefix of one deployment: its gateways and workers share it, and NATS permissions can be granted on it. */
  TOOLGATE_NATS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'must be NATS subject tokens (letters, digits, _ and -) separated by dots')
    .default(DEFAULT_SUBJECT_PREFIX),
  /** How long a start waits for running workers to announce their tools before the first catalog load ends. */
  TOOLGATE_REMOTE_DISCOVERY_MS: z.coerce.number().int().min(0).max(60_000).default(DEFAULT_REMOTE_TIMING.discoveryMs),
  /** Platform-wide usage examples kept (imported files), over all tools: past it the most-used tools lose their oldest. */
  TOOLGATE_USAGE_EXAMPLES_MAX: z.coerce.number().int().min(1).max(10_000_000).default(DEFAULT_USAGE_EXAMPLE_BOUNDS.platform),
  /** The same bound for what each tenant's runs taught. */
  TOOLGATE_LEARNED_EXAMPLES_MAX: z.coerce.number().int().min(1).max(10_000_000).default(DEFAULT_USAGE_EXAMPLE_BOUNDS.perTenant),
  TOOLGATE_SESSION_TTL_HOURS: z.coerce
    .number()
    .min(0.01)
    .max(24 * 365)
    .default(7 * 24),
});
export type RegistryEnv = z.infer<typeof registryEnvSchema>;

const DEFAULT_POLICY_FILES = ['toolgate.config.yaml', 'toolgate.config.yml', 'toolgate.config.json'];

/** The user's cache folder ($XDG_CACHE_HOME or ~/.cache) unless told otherwise; null for `off`. */
function importCacheDir(setting: string | undefined, cwd: string): string | null {
  if (setting === 'off') return null;
  if (setting) return resolve(cwd, setting);
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'toolgate', 'plugin-imports');
}

/** Turns validated env into module options; relative paths are taken from `cwd`. */
export function registryOptionsFromEnv(env: RegistryEnv, cwd = process.cwd()): RegistryModuleOptions {
  const pluginDirs = env.TOOLGATE_PLUGIN_DIRS
    ? env.TOOLGATE_PLUGIN_DIRS.split(delimiter)
        .filter(Boolean)
        .map((d) => resolve(cwd, d))
    : [resolve(cwd, 'plugins'), resolve(cwd, 'node_modules')];
  const policyFile = env.TOOLGATE_CONFIG ? resolve(cwd, env.TOOLGATE_CONFIG) : (DEFAULT_POLICY_FILES.map((f) => resolve(cwd, f)).find((f) => existsSync(f)) ?? null);
  return {
    database: env.DATABASE_URL ? { type: 'postgres', url: env.DATABASE_URL } : { type: 'sqlite', path: resolve(cwd, env.TOOLGATE_DATA_DIR, 'toolgate.db') },
    pluginDirs,
    pluginInstallDir: resolve(cwd, env.TOOLGATE_DATA_DIR, 'plugins'),
    policyFile,
    newVersionState: env.TOOLGATE_NEW_VERSION_STATE,
    sessions: { maxBytes: env.TOOLGATE_SESSION_MAX_BYTES, ttlMs: env.TOOLGATE_SESSION_TTL_HOURS * 3600 * 1000 },
    pluginImport: { ...DEFAULT_IMPORT_LIMITS, timeoutMs: env.TOOLGATE_PLUGIN_IMPORT_TIMEOUT_MS, heapMb: env.TOOLGATE_PLUGIN_IMPORT_HEAP_MB },
    pluginImportCache: importCacheDir(env.TOOLGATE_PLUGIN_IMPORT_CACHE, cwd),
    mcp: {
      connectTimeoutMs: env.TOOLGATE_MCP_CONNECT_TIMEOUT_MS,
      maxMessageBytes: env.TOOLGATE_MCP_MAX_MESSAGE_BYTES,
      maxSessions: env.TOOLGATE_MCP_MAX_SESSIONS,
      sessionIdleMs: env.TOOLGATE_MCP_SESSION_IDLE_MS,
    },
    usageExamples: { platform: env.TOOLGATE_USAGE_EXAMPLES_MAX, perTenant: env.TOOLGATE_LEARNED_EXAMPLES_MAX },
    remote: env.TOOLGATE_NATS_URL ? { ...natsOptionsFromEnv(env), discoveryMs: env.TOOLGATE_REMOTE_DISCOVERY_MS, missedHeartbeats: DEFAULT_REMOTE_TIMING.missedHeartbeats } : null,
  };
}

/** The NATS connection settings gateways and workers read alike (TOOLGATE_NATS_*). */
export function natsOptionsFromEnv(env: Pick<RegistryEnv, 'TOOLGATE_NATS_URL' | 'TOOLGATE_NATS_USER' | 'TOOLGATE_NATS_PASSWORD' | 'TOOLGATE_NATS_NKEY_SEED' | 'TOOLGATE_NATS_PREFIX'>): NatsOptions {
  if (env.TOOLGATE_NATS_NKEY_SEED && env.TOOLGATE_NATS_USER) {
    throw new ToolgateError(ErrorCode.INVALID_CONFIG, 'invalid NATS credentials', [
      { path: 'TOOLGATE_NATS_NKEY_SEED', message: 'set either an nkey seed or TOOLGATE_NATS_USER/TOOLGATE_NATS_PASSWORD, not both' },
    ]);
  }
  return {
    servers: env.TOOLGATE_NATS_URL ?? [],
    ...(env.TOOLGATE_NATS_USER ? { user: env.TOOLGATE_NATS_USER, password: env.TOOLGATE_NATS_PASSWORD ?? '' } : {}),
    ...(env.TOOLGATE_NATS_NKEY_SEED ? { nkeySeed: env.TOOLGATE_NATS_NKEY_SEED } : {}),
    prefix: env.TOOLGATE_NATS_PREFIX,
  };
}
