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
  /** `auto` probes for the 2026-07-28 era and falls back to 2025-11-25; `legacy` skips the probe; a revision pins it. */
  protocol: z.union([z.enum(['auto', 'legacy']), z.literal('2026-07-28')]).default('auto'),
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
  url: z
    .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
    // fetch refuses such a URL (and would echo it, credentials included, in its error).
    .refine((url) => !/^[a-z]+:\/\/[^/]*@/i.test(url), 'must not carry credentials (user:password@): send them in headers, e.g. Authorization'),
  headers: stringMap.default({}),
  ...toolgateFields,
});

export type McpServerConfig = z.infer<typeof stdioServer> | z.infer<typeof httpServer>;
export type McpStdioServerConfig = z.infer<typeof stdioServer>;

export interface NamedMcpServer {
  name: string;
  config: McpServerConfig;
}

export const isStdio = (config: McpServerConfig): config is McpStdioServerConfig => 'command' in config;

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * One entry, checked against the shape its own key picks (`command`: stdio, `url`: HTTP), so a typo
 * or a bad value is named at its field rather than hidden behind "matches neither shape".
 */
function parseEntry(name: string, value: unknown, issues: ErrorDetail[]): McpServerConfig | undefined {
  const at = `/mcpServers/${escapePointer(name)}`;
  const before = issues.length;
  if (!NAMESPACE_PATTERN.test(name)) issues.push({ path: at, message: 'server names are tool namespaces: lowercase letters, digits, . _ -, at most 128' });
  if (!isObject(value)) {
    issues.push({ path: at, message: 'must be an object with "command" (stdio) or "url" (Streamable HTTP)' });
    return undefined;
  }
  const stdio = 'command' in value;
  if (stdio && 'url' in value) {
    issues.push({ path: at, message: 'give either "command" (stdio) or "url" (Streamable HTTP), not both' });
    return undefined;
  }
  if (!stdio && !('url' in value)) {
    issues.push({ path: at, message: 'give "command" (stdio) or "url" (Streamable HTTP)' });
    return undefined;
  }
  const parsed = (stdio ? stdioServer : httpServer).safeParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const here = [at, ...issue.path.map((p) => escapePointer(String(p)))].join('/');
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) issues.push({ path: `${here}/${escapePointer(key)}`, message: `unknown field for a ${stdio ? 'stdio' : 'Streamable HTTP'} server` });
      } else if (issue.code === 'invalid_key') {
        issues.push({ path: here, message: issue.issues.map((i) => i.message).join('; ') });
      } else issues.push({ path: here, message: issue.message });
    }
  }
  return parsed.success && issues.length === before ? parsed.data : undefined;
}

/**
 * The `mcpServers` section of a config document, in the shape Claude Desktop and Cursor use
 * (`name: {command, args, env, cwd}` or `name: {url, headers}`), with `${ENV}` substituted. Throws
 * INVALID_CONFIG naming every offending field. `cwd` values are taken from the config file's folder.
 */
export function parseMcpServers(raw: unknown, source: string, env: NodeJS.ProcessEnv = process.env): NamedMcpServer[] {
  const section = isObject(raw) ? raw.mcpServers : undefined;
  if (section === undefined || section === null) return [];
  const issues: ErrorDetail[] = [];
  const servers: NamedMcpServer[] = [];
  if (!isObject(section)) issues.push({ path: '/mcpServers', message: 'must be a map of server name to server' });
  else {
    const interpolated = interpolateEnv(section, env, '/mcpServers', issues) as Record<string, unknown>;
    const base = resolve(source, '..');
    for (const [name, value] of Object.entries(interpolated)) {
      const config = parseEntry(name, value, issues);
      if (config) servers.push({ name, config: isStdio(config) && config.cwd && !isAbsolute(config.cwd) ? { ...config, cwd: resolve(base, config.cwd) } : config });
    }
  }
  if (issues.length > 0) throw new ToolgateError(ErrorCode.INVALID_CONFIG, `mcpServers in ${source} is invalid`, issues);
  return servers;
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

/** The values of a server's config that may be secrets: header and env values, URL credentials and query values. */
export function secretsOf(config: McpServerConfig): string[] {
  const values = isStdio(config) ? Object.values(config.env) : Object.values(config.headers);
  if (!isStdio(config)) {
    const url = new URL(config.url);
    values.push(decodeURIComponent(url.username), decodeURIComponent(url.password), ...url.searchParams.values());
    // "Bearer <token>" shows up split as well as whole.
    for (const header of Object.values(config.headers)) values.push(...header.split(/\s+/));
  }
  return [...new Set(values.filter((v) => v.length >= 6))].sort((a, b) => b.length - a.length);
}

/** `text` with every secret of the server replaced, for errors, logs and status that operators and callers read. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  return secrets.reduce((out, secret) => out.split(secret).join('***'), text);
}
