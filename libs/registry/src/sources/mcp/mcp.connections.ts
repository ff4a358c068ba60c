import type { Readable } from 'node:stream';
import { Client, type PriorDiscovery, ProtocolError, SdkError, SdkErrorCode, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ErrorCode, type ErrorDetail, MAX_TOOLS_PER_PACKAGE, ToolgateError, type ToolManifest } from '@toolgate/sdk';
import { Subject } from 'rxjs';
import semver from 'semver';
import { REGISTRY_OPTIONS, type RegistryModuleOptions } from '../../registry.module-definition';
import { mapAtMost } from '../concurrency.util';
import type { PluginLoadResult } from '../npm/plugin.loader';
import { boundedFetch } from './bounded.fetch';
import { describeTarget, isStdio, loadMcpServers, type McpServerConfig, type NamedMcpServer, scrubSecrets, secretsOf } from './mcp-servers.config';
import { type McpToolListing, mapMcpTool } from './mcp-tool.mapper';

const tracer = trace.getTracer('toolgate.registry');

export interface McpLimits {
  /** Connect and first listing of one server. */
  connectTimeoutMs: number;
  /** Largest JSON-RPC message a server may send (stdio line, HTTP body or SSE event). */
  maxMessageBytes: number;
  /** Open per-tenant sessions per server; the least recently used idle one is closed past it. */
  maxSessions: number;
  /** A per-tenant session unused this long is closed. */
  sessionIdleMs: number;
}

export const DEFAULT_MCP_LIMITS: McpLimits = { connectTimeoutMs: 15_000, maxMessageBytes: 8 * 1024 * 1024, maxSessions: 16, sessionIdleMs: 5 * 60_000 };

export type McpServerState = 'CONNECTING' | 'READY' | 'FAILED' | 'DISABLED';

/** What an operator sees of one configured server (no header or env values). */
export interface McpServerStatus {
  name: string;
  transport: 'stdio' | 'http';
  target: string;
  state: McpServerState;
  protocolVersion: string | null;
  serverName: string | null;
  serverVersion: string | null;
  toolCount: number;
  /** Listed tools the catalog refused, with the reason (schema outside the subset, a name that collides, …). */
  refusedTools: ErrorDetail[];
  lastError: string | null;
  lastSyncAt: number | null;
  /** Open per-tenant sessions. */
  sessions: number;
}

/** The raw MCP result of one call, and whether the tool declared an outputSchema (its output is then `structuredContent`). */
export interface McpCallResult {
  result: { content?: unknown[]; structuredContent?: unknown; isError?: boolean };
  structured: boolean;
}

export interface McpCallOptions {
  tenant: string;
  signal: AbortSignal;
  timeoutMs: number;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

interface ListedTool {
  mcpName: string;
  structured: boolean;
}

interface Session {
  client: Client;
  lastUsed: number;
  inFlight: number;
}

interface SessionSlot {
  pending: Promise<Session>;
  session?: Session;
}

interface ServerEntry {
  name: string;
  config: McpServerConfig;
  configKey: string;
  /** All but `sessions`, which statuses() counts. */
  status: Omit<McpServerStatus, 'sessions'>;
  /** The connection that lists tools, pings, and carries calls of `shared` servers. */
  catalog?: Promise<Client>;
  sessions: Map<string, SessionSlot>;
  tools: Map<string, ListedTool>;
  era?: PriorDiscovery;
  stderrTail: string;
  /** The last error the transport reported (e.g. a message over the size limit), for the reason a connection closed. */
  transportError?: string;
  reconnectTimer?: NodeJS.Timeout;
  backoffMs: number;
  closing: boolean;
}

const CLIENT_INFO = { name: 'toolgate', version: '0.1.0' };
const MAX_STDERR_TAIL = 2000;
const MAX_BACKOFF_MS = 60_000;
const CONNECT_CONCURRENCY = 4;
/**
 * Pages of one tools/list walk: with each message bounded, the walk holds at most this many of them
 * (a server whose cursor never ends is FAILED, not followed forever).
 */
const MAX_LIST_PAGES = 16;

/**
 * The SDK's own stdio transport probes the protocol era on a second, short-lived process; a
 * subclass probes in place (the SDK's documented behaviour), halving the processes a connect starts.
 */
class InPlaceProbeStdioTransport extends StdioClientTransport {}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

function versionOf(reported: string | undefined): string {
  if (reported && semver.valid(reported)) return reported;
  return semver.coerce(reported ?? '')?.version ?? '0.0.0';
}

/**
 * Connections to the configured MCP servers (Toolgate as an MCP client). One catalog connection per
 * server lists its tools, follows `list_changed` and answers pings; calls go through a session per
 * tenant (stdio: a process per tenant) unless the server is `shared`, so state a server keeps never
 * crosses tenants. Every message is bounded in size; a server that crashes, hangs or misbehaves is
 * FAILED with the reason and reconnected with backoff, never stopping the others.
 */
@Injectable()
export class McpConnections implements OnApplicationShutdown {
  private readonly logger = new Logger('McpConnections');
  private readonly servers = new Map<string, ServerEntry>();
  private readonly changed = new Subject<void>();
  /** Emits when a server's tool list changed or it came back: the MCP tool source loads again. */
  readonly changes$ = this.changed.asObservable();
  private readonly limits: McpLimits;
  /** Each server's last load result, and the servers whose tool list changed since (see syncChanged). */
  private readonly lastResults = new Map<string, PluginLoadResult>();
  private readonly dirty = new Set<string>();

  constructor(@Inject(REGISTRY_OPTIONS) private readonly options: RegistryModuleOptions) {
    this.limits = options.mcp ?? DEFAULT_MCP_LIMITS;
  }

  statuses(): McpServerStatus[] {
    return [...this.servers.values()].map((s) => ({ ...s.status, sessions: s.sessions.size })).sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * Reads `mcpServers` from the config file, connects what is new or changed, closes what is gone,
   * and lists every server's tools: one load result per server. An invalid section throws
   * INVALID_CONFIG and leaves the servers in use as they were.
   */
  async sync(): Promise<PluginLoadResult[]> {
    const configured = await loadMcpServers(this.options.policyFile);
    this.dirty.clear();
    const names = new Set(configured.map((s) => s.name));
    for (const [name, entry] of this.servers) {
      if (!names.has(name)) {
        this.servers.delete(name);
        this.lastResults.delete(name);
        await this.shutdown(entry);
      }
    }
    return mapAtMost(configured, CONNECT_CONCURRENCY, (server) => this.syncServer(server));
  }

  /** After a `list_changed` or a reconnect: lists again only the servers that changed; the others keep their last result. */
  async syncChanged(): Promise<PluginLoadResult[]> {
    const changed = [...this.dirty];
    this.dirty.clear();
    for (const name of changed) {
      const entry = this.servers.get(name);
      if (entry) await this.syncServer({ name, config: entry.config });
    }
    return [...this.lastResults.values()];
  }

  private markChanged(entry: ServerEntry): void {
    this.dirty.add(entry.name);
    this.changed.next();
  }

  private async syncServer(server: NamedMcpServer): Promise<PluginLoadResult> {
    const result = await this.listServer(server);
    this.lastResults.set(server.name, result);
    return result;
  }

  private async listServer({ name, config }: NamedMcpServer): Promise<PluginLoadResult> {
    const configKey = JSON.stringify(config);
    let entry = this.servers.get(name);
    if (entry && entry.configKey !== configKey) {
      this.servers.delete(name);
      await this.shutdown(entry);
      entry = undefined;
    }
    if (!entry) {
      entry = this.newEntry(name, config, configKey);
      this.servers.set(name, entry);
    }
    if (!config.enabled) {
      entry.status.state = 'DISABLED';
      entry.tools.clear();
      return this.failure(entry, new ToolgateError(ErrorCode.UNAVAILABLE, `MCP server ${name} is disabled in the config (enabled: false)`));
    }
    try {
      const client = await this.catalogClient(entry);
      const listing = await client.listTools(undefined, { timeout: this.limits.connectTimeoutMs, cacheMode: 'bypass' });
      return this.loaded(entry, client, listing.tools as unknown as McpToolListing[]);
    } catch (error) {
      // A connection that answered the handshake but not the listing is closed before the retry opens another.
      const stale = entry.catalog;
      entry.catalog = undefined;
      void stale?.then((client) => client.close()).catch(() => undefined);
      const typed = this.typed(entry, error, 'connecting and listing tools');
      this.markFailed(entry, typed.message);
      return this.failure(entry, typed);
    }
  }

  private newEntry(name: string, config: McpServerConfig, configKey: string): ServerEntry {
    return {
      name,
      config,
      configKey,
      status: {
        name,
        transport: isStdio(config) ? 'stdio' : 'http',
        target: describeTarget(config),
        state: 'CONNECTING',
        protocolVersion: null,
        serverName: null,
        serverVersion: null,
        toolCount: 0,
        refusedTools: [],
        lastError: null,
        lastSyncAt: null,
      },
      sessions: new Map(),
      tools: new Map(),
      stderrTail: '',
      backoffMs: 1000,
      closing: false,
    };
  }

  private loaded(entry: ServerEntry, client: Client, listed: McpToolListing[]): PluginLoadResult {
    const serverInfo = client.getServerVersion();
    const version = versionOf(serverInfo?.version);
    Object.assign(entry.status, {
      state: 'READY',
      protocolVersion: client.getNegotiatedProtocolVersion() ?? null,
      serverName: serverInfo?.name ?? null,
      serverVersion: serverInfo?.version ?? null,
      lastError: null,
      lastSyncAt: Date.now(),
    });
    entry.backoffMs = 1000;
    if (listed.length > MAX_TOOLS_PER_PACKAGE) {
      entry.tools.clear();
      const error = new ToolgateError(ErrorCode.PLUGIN_INVALID, `MCP server ${entry.name} lists ${listed.length} tools; at most ${MAX_TOOLS_PER_PACKAGE} are taken from one server`, [
        { path: '/tools', message: `more than ${MAX_TOOLS_PER_PACKAGE} tools: split the server or filter its tools` },
      ]);
      Object.assign(entry.status, { state: 'FAILED', lastError: error.message, toolCount: 0, refusedTools: [] });
      return this.failure(entry, error, version);
    }
    const refused: ErrorDetail[] = [];
    const mapped = listed.flatMap((tool, index) => {
      const result = mapMcpTool(tool, entry.name, entry.config, index);
      if ('issues' in result) {
        refused.push(...result.issues);
        return [];
      }
      return [{ ...result, index, structured: tool.outputSchema !== undefined }];
    });
    // Two MCP names that become one catalog name: neither is offered, since listing order would pick the winner.
    const claims = new Map<string, typeof mapped>();
    for (const m of mapped) claims.set(m.manifest.name, [...(claims.get(m.manifest.name) ?? []), m]);
    const tools: ToolManifest[] = [];
    const byName = new Map<string, ListedTool>();
    for (const [name, claimants] of claims) {
      if (claimants.length > 1) {
        for (const c of claimants) {
          refused.push({
            path: `/tools/${c.index}/name`,
            message: `"${c.mcpName}" collides with ${claimants
              .filter((o) => o !== c)
              .map((o) => `"${o.mcpName}"`)
              .join(', ')} as tool ${entry.name}/${name}; none is offered`,
          });
        }
        continue;
      }
      const [only] = claimants;
      byName.set(name, { mcpName: only.mcpName, structured: only.structured });
      tools.push({ ...only.manifest, healthCheck: pingStandIn });
    }
    const offered = tools;
    entry.tools = byName;
    entry.status.toolCount = offered.length;
    entry.status.refusedTools = refused;
    if (refused.length > 0) this.logger.warn({ server: entry.name, refused }, 'MCP tools refused');
    if (offered.length === 0) {
      entry.status.state = 'FAILED';
      const error = new ToolgateError(
        ErrorCode.PLUGIN_INVALID,
        `MCP server ${entry.name} offers no usable tools`,
        refused.length > 0 ? refused : [{ path: '/tools', message: 'the server lists no tools' }],
      );
      entry.status.lastError = error.message;
      return this.failure(entry, error, version);
    }
    return { ok: true, dir: `mcp:${entry.name}`, identity: { name: entry.name, version }, namespace: entry.name, tools: offered };
  }

  private failure(entry: ServerEntry, error: ToolgateError, version?: string): PluginLoadResult {
    return { ok: false, dir: `mcp:${entry.name}`, ...(version ? { identity: { name: entry.name, version } } : {}), label: entry.name, error };
  }

  /** Calls one listed tool as the tenant's session; the server's own errors come back as TOOL_FAILED/TIMEOUT with its message. */
  async call(server: string, toolName: string, args: Record<string, unknown>, options: McpCallOptions): Promise<McpCallResult> {
    const entry = this.servers.get(server);
    if (!entry || entry.status.state === 'DISABLED') throw new ToolgateError(ErrorCode.UNAVAILABLE, `MCP server ${server} is not configured or is disabled`);
    const tool = entry.tools.get(toolName);
    if (!tool) throw new ToolgateError(ErrorCode.TOOL_NOT_FOUND, `MCP server ${server} no longer lists ${toolName}`);
    const session = entry.config.isolation === 'shared' ? undefined : await this.session(entry, options.tenant);
    const client = session ? session.client : await this.catalogClient(entry);
    if (session) session.inFlight++;
    // The OpenTelemetry MCP client span; its context travels in `_meta` (W3C traceparent) so a server that traces joins the trace.
    const span = tracer.startSpan(`tools/call ${tool.mcpName}`, {
      kind: SpanKind.CLIENT,
      attributes: {
        'mcp.method.name': 'tools/call',
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': tool.mcpName,
        'toolgate.mcp.server': server,
        'network.transport': entry.status.transport === 'stdio' ? 'pipe' : 'tcp',
      },
    });
    const meta: Record<string, string> = {};
    propagation.inject(trace.setSpan(context.active(), span), meta);
    try {
      const result = await client.callTool(
        { name: tool.mcpName, arguments: args, ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}) },
        {
          signal: options.signal,
          timeout: options.timeoutMs,
          ...(options.onProgress ? { onprogress: options.onProgress, resetTimeoutOnProgress: false } : {}),
        },
      );
      if ((result as McpCallResult['result']).isError === true) span.setAttribute('error.type', 'tool_error');
      return { result: result as McpCallResult['result'], structured: tool.structured };
    } catch (error) {
      const typed = this.typed(entry, error, `calling ${tool.mcpName}`);
      span.setAttribute('error.type', typed.code);
      span.setStatus({ code: SpanStatusCode.ERROR, message: typed.message });
      throw typed;
    } finally {
      span.end();
      if (session) {
        session.inFlight--;
        session.lastUsed = Date.now();
      }
    }
  }

  /** Health of a server's tools: a ping on its catalog connection (a closed one is reconnected in the background). */
  async ping(server: string, signal: AbortSignal): Promise<{ healthy: boolean; detail?: string }> {
    const entry = this.servers.get(server);
    if (!entry) return { healthy: false, detail: `MCP server ${server} is not configured` };
    if (entry.status.state !== 'READY' || !entry.catalog)
      return { healthy: false, detail: `MCP server ${server} is ${entry.status.state}${entry.status.lastError ? `: ${entry.status.lastError}` : ''}` };
    try {
      const client = await entry.catalog;
      if (client.getProtocolEra?.() === 'modern') await client.listTools(undefined, { signal, cacheMode: 'bypass' });
      else await client.ping({ signal, timeout: this.limits.connectTimeoutMs });
      return { healthy: true };
    } catch (error) {
      return { healthy: false, detail: `ping failed: ${message(error)}` };
    }
  }

  private catalogClient(entry: ServerEntry): Promise<Client> {
    entry.catalog ??= this.connect(entry, 'catalog').catch((error: unknown) => {
      entry.catalog = undefined;
      throw error;
    });
    return entry.catalog;
  }

  private session(entry: ServerEntry, tenant: string): Promise<Session> {
    this.sweepSessions(entry);
    const existing = entry.sessions.get(tenant);
    if (existing) return existing.pending;
    const slot: SessionSlot = {
      pending: this.connect(entry, tenant).then((client) => {
        slot.session = { client, lastUsed: Date.now(), inFlight: 0 };
        return slot.session;
      }),
    };
    slot.pending.catch(() => {
      if (entry.sessions.get(tenant) === slot) entry.sessions.delete(tenant);
    });
    entry.sessions.set(tenant, slot);
    return slot.pending;
  }

  /** Closes idle sessions past their idle time, and the least recently used idle ones past the per-server cap. */
  private sweepSessions(entry: ServerEntry): void {
    const now = Date.now();
    const idle = [...entry.sessions].flatMap(([tenant, slot]) => (slot.session && slot.session.inFlight === 0 ? [[tenant, slot.session] as const] : []));
    idle.sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    let excess = entry.sessions.size - this.limits.maxSessions + 1;
    for (const [tenant, session] of idle) {
      if (excess > 0 || now - session.lastUsed > this.limits.sessionIdleMs) {
        entry.sessions.delete(tenant);
        excess--;
        void session.client.close().catch(() => undefined);
      }
    }
  }

  private async connect(entry: ServerEntry, purpose: string): Promise<Client> {
    const { config } = entry;
    const client = new Client(CLIENT_INFO, {
      listMaxPages: MAX_LIST_PAGES,
      versionNegotiation: {
        mode: config.protocol === '2026-07-28' ? { pin: config.protocol } : config.protocol,
        probe: { timeoutMs: Math.min(5_000, this.limits.connectTimeoutMs) },
      },
      ...(purpose === 'catalog'
        ? {
            listChanged: {
              tools: {
                autoRefresh: false,
                debounceMs: 500,
                onChanged: () => {
                  this.logger.log({ server: entry.name }, 'MCP server tool list changed');
                  this.markChanged(entry);
                },
              },
            },
          }
        : {}),
    });
    const transport = isStdio(config)
      ? new InPlaceProbeStdioTransport({
          command: config.command,
          args: config.args,
          env: { ...getDefaultEnvironment(), ...config.env },
          ...(config.cwd ? { cwd: config.cwd } : {}),
          stderr: 'pipe',
          maxBufferSize: this.limits.maxMessageBytes,
        })
      : new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers }, fetch: boundedFetch(this.limits.maxMessageBytes) });
    if (transport instanceof StdioClientTransport) {
      (transport.stderr as Readable | null)?.on('data', (chunk: Buffer) => {
        entry.stderrTail = (entry.stderrTail + chunk.toString('utf8')).slice(-MAX_STDERR_TAIL);
      });
    }
    client.onerror = (error) => {
      entry.transportError = message(error);
      this.logger.debug({ server: entry.name, purpose, err: entry.transportError }, 'MCP transport error');
    };
    try {
      await client.connect(transport, { timeout: this.limits.connectTimeoutMs, ...(entry.era ? { prior: entry.era } : {}) });
    } catch (error) {
      // A server that hung or failed in the handshake is stopped, not left running beside its retry.
      await transport.close().catch(() => undefined);
      throw error;
    }
    // Later connections skip the era probe (a second process on stdio).
    const discover = client.getDiscoverResult();
    entry.era ??= discover ? { kind: 'modern', discover } : { kind: 'legacy' };
    client.onclose = () => {
      if (purpose === 'catalog') this.onCatalogClosed(entry, client);
      else if (entry.sessions.get(purpose)?.session?.client === client) entry.sessions.delete(purpose);
    };
    if (purpose !== 'catalog') this.logger.log({ server: entry.name, tenant: purpose }, 'MCP session opened');
    return client;
  }

  private onCatalogClosed(entry: ServerEntry, client: Client): void {
    if (entry.closing || this.servers.get(entry.name) !== entry) return;
    void entry.catalog?.then((current) => {
      if (current !== client) return;
      entry.catalog = undefined;
      this.markFailed(entry, `connection closed${entry.transportError ? `: ${entry.transportError}` : ''}${entry.stderrTail ? `; stderr: ${entry.stderrTail.trim().slice(-500)}` : ''}`);
    });
  }

  /** FAILED with the reason, and a reconnect later (backoff doubling to a minute); a reconnect that lists tools reloads the source. */
  private markFailed(entry: ServerEntry, reason: string): void {
    entry.status.state = 'FAILED';
    entry.status.lastError = scrubSecrets(reason, secretsOf(entry.config));
    this.logger.warn({ server: entry.name, reason: entry.status.lastError, retryInMs: entry.backoffMs }, 'MCP server unavailable');
    if (entry.reconnectTimer || entry.closing) return;
    const delay = entry.backoffMs;
    entry.backoffMs = Math.min(MAX_BACKOFF_MS, entry.backoffMs * 2);
    entry.reconnectTimer = setTimeout(() => {
      entry.reconnectTimer = undefined;
      if (entry.closing || this.servers.get(entry.name) !== entry) return;
      this.catalogClient(entry).then(
        () => this.markChanged(entry),
        (error: unknown) => this.markFailed(entry, this.typed(entry, error, 'reconnecting').message),
      );
    }, delay);
    entry.reconnectTimer.unref();
  }

  /**
   * A typed error for what the SDK or the server reported, with the server's stderr when a stdio
   * server died; the server's secrets (header and env values, URL credentials) never appear in it.
   */
  private typed(entry: ServerEntry, error: unknown, doing: string): ToolgateError {
    const typed = this.describe(entry, error, doing);
    const scrubbed = scrubSecrets(typed.message, secretsOf(entry.config));
    return scrubbed === typed.message ? typed : new ToolgateError(typed.code, scrubbed, typed.details);
  }

  private describe(entry: ServerEntry, error: unknown, doing: string): ToolgateError {
    if (ToolgateError.is(error)) return error;
    const stderr = `${entry.transportError ? ` (${entry.transportError})` : ''}${entry.stderrTail.trim() ? ` (stderr: ${entry.stderrTail.trim().slice(-300)})` : ''}`;
    const what = `MCP server ${entry.name}, ${doing}`;
    if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) return new ToolgateError(ErrorCode.TIMEOUT, `${what}: no answer in time`, [], { cause: error });
    if (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) return new ToolgateError(ErrorCode.TOOL_FAILED, `${what}: the connection closed${stderr}`, [], { cause: error });
    if (error instanceof ProtocolError) return new ToolgateError(ErrorCode.TOOL_FAILED, `${what}: ${error.message}`, [], { cause: error });
    return new ToolgateError(ErrorCode.TOOL_FAILED, `${what}: ${message(error)}${stderr}`, [], { cause: error });
  }

  private async shutdown(entry: ServerEntry): Promise<void> {
    entry.closing = true;
    if (entry.reconnectTimer) clearTimeout(entry.reconnectTimer);
    const clients = [entry.catalog, ...[...entry.sessions.values()].map((slot) => slot.pending)].filter(Boolean) as Promise<Client | Session>[];
    entry.sessions.clear();
    entry.catalog = undefined;
    await Promise.all(
      clients.map((pending) =>
        pending.then(
          (c) => ('client' in c ? c.client : c).close(),
          () => undefined,
        ),
      ),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    const entries = [...this.servers.values()];
    this.servers.clear();
    await Promise.all(entries.map((e) => this.shutdown(e)));
  }
}

/** MCP tools have a health check: a ping of their server (McpConnections.ping), run by the executor's MCP route. */
const pingStandIn = Object.assign(
  async () => {
    throw new ToolgateError(ErrorCode.INTERNAL, 'an MCP tool is pinged by the executor, not called in the catalog');
  },
  { mcpPing: true },
);
