import { join } from 'node:path';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpTransportV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioTransportV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { REPO_ROOT } from './gateway-process';

/**
 * The official MCP clients of both eras behind one small face: the v1 SDK (`@modelcontextprotocol/sdk`,
 * 2025-11-25 via `initialize`) and the v2 SDK (`@modelcontextprotocol/client`) pinned to 2026-07-28
 * or negotiating (`auto`). Nothing is mocked: each speaks its own wire protocol to the built gateway.
 */
export type ClientKind = 'v1' | 'v2-pin' | 'v2-auto';
export const CLIENT_KINDS: ClientKind[] = ['v1', 'v2-pin', 'v2-auto'];

export interface ToolResult {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface McpTestClient {
  kind: ClientKind;
  protocolVersion: string | undefined;
  listTools(): Promise<{ name: string; outputSchema?: unknown; inputSchema: unknown; annotations?: Record<string, unknown> }[]>;
  call(name: string, args: Record<string, unknown>, options?: { signal?: AbortSignal; onprogress?: (progress: { progress: number; total?: number; message?: string }) => void }): Promise<ToolResult>;
  close(): Promise<void>;
}

const BIN = join(REPO_ROOT, 'apps', 'gateway', 'bin', 'toolgate.js');
const CLIENT_INFO = { name: 'toolgate-test', version: '1.0.0' };
/** Long enough for a stdio server's first boot (plugins imported in their own processes) on a busy machine. */
const TIMEOUT_MS = 60_000;

type Transport = 'http' | { env: Record<string, string>; args: string[] };

async function connect(kind: ClientKind, transport: Transport, url?: string, key?: string): Promise<McpTestClient> {
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  if (kind === 'v1') {
    const client = new ClientV1(CLIENT_INFO);
    const wire =
      transport === 'http'
        ? new HttpTransportV1(new URL(url as string), { requestInit: { headers } })
        : new StdioTransportV1({ command: process.execPath, args: [BIN, ...transport.args], env: transport.env, cwd: REPO_ROOT, stderr: 'pipe' });
    let negotiated: string | undefined;
    // The v1 client hands the negotiated version to its transport; the stdio one does not keep it.
    const setProtocolVersion = (wire as { setProtocolVersion?: (version: string) => void }).setProtocolVersion?.bind(wire);
    Object.assign(wire, {
      setProtocolVersion: (version: string) => {
        negotiated = version;
        setProtocolVersion?.(version);
      },
    });
    await client.connect(wire, { timeout: TIMEOUT_MS });
    return {
      kind,
      protocolVersion: negotiated,
      listTools: async () => (await client.listTools()).tools,
      call: async (name, args, options = {}) => (await client.callTool({ name, arguments: args }, undefined, { timeout: TIMEOUT_MS, resetTimeoutOnProgress: true, ...options })) as ToolResult,
      close: () => client.close(),
    };
  }
  const client = new ClientV2(CLIENT_INFO, { versionNegotiation: { mode: kind === 'v2-pin' ? { pin: '2026-07-28' } : 'auto', probe: { timeoutMs: TIMEOUT_MS } } });
  const wire =
    transport === 'http'
      ? new HttpTransportV2(new URL(url as string), { requestInit: { headers } })
      : new StdioTransportV2({ command: process.execPath, args: [BIN, ...transport.args], env: transport.env, cwd: REPO_ROOT, stderr: 'pipe' });
  await client.connect(wire, { timeout: TIMEOUT_MS });
  return {
    kind,
    protocolVersion: client.getNegotiatedProtocolVersion(),
    listTools: async () => (await client.listTools()).tools as Awaited<ReturnType<McpTestClient['listTools']>>,
    call: async (name, args, options = {}) => (await client.callTool({ name, arguments: args }, { timeout: TIMEOUT_MS, resetTimeoutOnProgress: true, ...options })) as ToolResult,
    close: () => client.close(),
  };
}

/** A client of `kind` on the gateway's /mcp, with `key` as a Bearer header. */
export const connectHttp = (kind: ClientKind, url: string, key?: string) => connect(kind, 'http', url, key);

/** A client of `kind` that launches `toolgate mcp serve <args>` with exactly `env`, as Claude Desktop or Cursor would. */
export const connectStdio = (kind: ClientKind, env: Record<string, string>, args: string[] = []) => connect(kind, { env, args: ['mcp', 'serve', ...args] });

/** The gateway's MCP endpoint beside its GraphQL one. */
export const mcpUrlOf = (graphqlUrl: string) => graphqlUrl.replace(/\/graphql$/, '/mcp');

/** The JSON text block a meta-tool result carries for older clients: it must equal structuredContent. */
export const textJson = (result: ToolResult): unknown => JSON.parse(result.content[result.content.length - 1]?.text ?? 'null');

/** The clients a spec opens with `open`, all closed by `closeAll` (its afterEach). */
export function clientTracker(): { open: (client: Promise<McpTestClient>) => Promise<McpTestClient>; closeAll: () => Promise<void> } {
  const clients: McpTestClient[] = [];
  return {
    open: async (client) => {
      const opened = await client;
      clients.push(opened);
      return opened;
    },
    closeAll: async () => {
      await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
    },
  };
}
