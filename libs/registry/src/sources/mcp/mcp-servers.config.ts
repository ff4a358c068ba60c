import { readFile } from 'node:fs/promises';
import { extname, isAbsolute, resolve } from 'node:path';
import { ErrorCode, type ErrorDetail, NAMESPACE_PATTERN, ToolgateError } from '@toolgate/sdk';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { interpolateEnv } from '../../access/policy-file.loader';

/** What Toolgate adds to a server entry: how far its own claims are believed, and the limits of its calls. */
const toolgateFields = {
  /**
   * `untrusted` (the default): the server's annotations may raise a tool's risk but never lower it
   * below `write`, and `idempotentHint` is not believed (no blind retries). `trusted`: annotations are
   * taken as given. Either way `risk` and `requiresApproval` set by the operator are floors.
   */
  trust: z.enum(['untrusted', 'trusted']).default('untrusted'),
  risk: z.enum(['read', 'write', 'destructive']).optional(),
  requiresApproval: z.boolean().optional(),
  /** Per call; the connect-and-list handshake has its own bound, TOOLGATE_MCP_CONNECT_TIMEOUT_MS. */
  timeoutMs: z.number().int().min(100).max(3_600_000).default(30_000),
  maxConcurrency: z.number().int().min(1).max(1_000).default(8),
  retries: z.number().int().min(0).max(5).default(1),
  /** `tenant`: each tenant calls through its own session (stdio: its own process), so server-side state never crosses tenants. */
  isolation: z.enum(['tenant', 'shared']).default('tenant'),
  enabled: z.boolean().default(true),
};

const stringMap = z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, 'must be a variable or header name'), z.string());

const stdioServer = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  /** The only variables the server process gets besides PATH, HOME and the like: secrets are passed on purpose, never inherited. */
  env: stringMap.default({}),
  cwd: z.string().min(1).optional(),
  ...toolgateFields,
});

const httpServer = z.strictObject({
  url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }),
  headers: stringMap.default({}),
  ...toolgateFields,
});

const serverEntry = z.union([stdioServer, httpServer], { error: 'give either "command" (stdio) or "url" (Streamable HTTP), with their fields only' });

const serversSchema = z.record(z.string().regex(NAMESPACE_PATTERN, 'server names are tool namespaces: lowercase letters, digits, . _ -, at most 128'), serverEntry);

export type McpServerConfig = z.infer<typeof stdioServer> | z.infer<typeof httpServer>;
export type McpStdioServerConfig = z.infer<typeof stdioServer>;

export interface NamedMcpServer {
  name: string;
  config: McpServerConfig;
}

export const isStdio = (config: McpServerConfig): config is McpStdioServerConfig => 'command' in config;

const toPointer = (path: PropertyKey[]) => `/mcpServers${path.length ? `/${path.map(String).join('/')}` : ''}`;

/**
 * The `mcpServers` section of a config document, in the shape Claude Desktop and Cursor use
 * (`name: {command, args, env, cwd}` or `name: {url, headers}`), with `${ENV}` substituted. Throws
 * INVALID_CONFIG naming every offending field. `cwd` values are taken from the config file's folder.
 */
export function parseMcpServers(raw: unknown, source: string, env: NodeJS.ProcessEnv = process.env): NamedMcpServer[] {
  const section = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>).mcpServers : undefined;
  if (section === undefined || section === null) return [];
  const issues: ErrorDetail[] = [];
  const interpolated = interpolateEnv(section, env, '/mcpServers', issues);
  const parsed = serversSchema.safeParse(interpolated);
  if (!parsed.success) issues.push(...parsed.error.issues.map((i) => ({ path: toPointer(i.path), message: i.message })));
  if (issues.length > 0 || !parsed.success) throw new ToolgateError(ErrorCode.INVALID_CONFIG, `mcpServers in ${source} is invalid`, issues);
  const base = resolve(source, '..');
  return Object.entries(parsed.data).map(([name, config]) => ({
    name,
    config: isStdio(config) && config.cwd && !isAbsolute(config.cwd) ? { ...config, cwd: resolve(base, config.cwd) } : config,
  }));
}

/** Reads the config file's `mcpServers` (none without a file). */
export async function loadMcpServers(file: string | null, env: NodeJS.ProcessEnv = process.env): Promise<NamedMcpServer[]> {
  if (!file) return [];
  let raw: unknown;
  try {
    const text = await readFile(file, 'utf8');
    raw = extname(file) === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ToolgateError(ErrorCode.INVALID_CONFIG, `cannot read mcpServers from ${file}: ${(error as Error).message}`, [], { cause: error });
  }
  return parseMcpServers(raw, file, env);
}

/** What may be shown of a server's config: never header or env values, which carry secrets. */
export function describeTarget(config: McpServerConfig): string {
  if (isStdio(config)) return `stdio: ${config.command}${config.args.length ? ` (${config.args.length} args)` : ''}`;
  const url = new URL(config.url);
  return `http: ${url.origin}${url.pathname}`;
}
