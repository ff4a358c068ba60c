/**
 * The floor of any MCP gateway, for bench/mcp: an MCP server that forwards each of an upstream
 * server's tools to it and does nothing else (no auth, no plan, no record), built from the same parts Toolgate
 * uses (SDK v2 `createMcpHandler` on one side, SDK v2 Client over Streamable HTTP on the other).
 * Whatever this adds to a direct call is the cost of the extra hop itself.
 * Usage: node passthrough.js <port> <upstream /mcp url>
 */
import { createServer } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type CallToolResult, createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

async function main(): Promise<void> {
  const [port, upstreamUrl] = process.argv.slice(2);
  const upstream = new Client({ name: 'bench-passthrough', version: '1.0.0' });
  await upstream.connect(new StreamableHTTPClientTransport(new URL(upstreamUrl)));
  const { tools } = await upstream.listTools();
  const anyArguments = z.looseObject({});

  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'passthrough', version: '1.0.0' });
    for (const { name } of tools) {
      server.registerTool(name, { inputSchema: anyArguments }, async (args) => (await upstream.callTool({ name, arguments: args })) as CallToolResult);
    }
    return server;
  });

  createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && name !== 'content-length') headers.set(name, value);
    const body = req.method === 'POST' ? Buffer.concat(chunks) : undefined;
    const response = await handler.fetch(new Request(`http://127.0.0.1:${port}${req.url}`, { method: req.method, headers, body }));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (!response.body) return void res.end();
    Readable.fromWeb(response.body as NodeReadableStream).pipe(res);
  }).listen(Number(port), '127.0.0.1');
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
