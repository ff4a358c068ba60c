#!/usr/bin/env node
// An MCP server on the official SDK (v1, stdio) whose behaviour a test chooses, for the cases no
// reference server shows: a tool list read from a file on every tools/list (drift, poisoning),
// a crash at start, a hang in the handshake, 5,000 tools, an answer larger than any limit.
// MCP_FIXTURE_MODE: tools-file (default) | crash | hang | many | flood | endless (a tools/list whose
// nextCursor never ends); MCP_FIXTURE_TOOLS: the JSON file;
// MCP_FIXTURE_VERSION: the version the server reports. Calling a tool with text 'announce' sends
// tools/list_changed; with 'fail' it answers isError; with 'wait' it waits for its cancellation and
// writes MCP_FIXTURE_CANCELLED_FILE when told.
const { readFileSync, writeFileSync } = require('node:fs');
const { Server } = require('@modelcontextprotocol/sdk/server/index.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { CallToolRequestSchema, ListToolsRequestSchema } = require('@modelcontextprotocol/sdk/types.js');

const mode = process.env.MCP_FIXTURE_MODE ?? 'tools-file';
if (mode === 'crash') {
  process.stderr.write('fixture: cannot open its database, exiting\n');
  process.exit(3);
}
if (mode === 'hang') {
  // Reads stdin and never answers; leaves when its client goes away (stdin ends), as stdio servers must.
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
  setInterval(() => undefined, 60_000);
} else {
  const echoTool = (name) => ({
    name,
    description: `Echoes its text argument back (${name}).`,
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    annotations: { destructiveHint: false },
  });
  const tools = () => {
    if (mode === 'many') return Array.from({ length: 5000 }, (_, i) => echoTool(`tool-${i}`));
    if (mode === 'flood' || mode === 'endless') return [echoTool(mode)];
    return JSON.parse(readFileSync(process.env.MCP_FIXTURE_TOOLS, 'utf8'));
  };
  const server = new Server({ name: 'fixture', version: process.env.MCP_FIXTURE_VERSION ?? '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    if (mode === 'endless') {
      const page = Number(request.params?.cursor ?? 0);
      return { tools: [echoTool(`page-${page}`)], nextCursor: String(page + 1) };
    }
    return { tools: tools() };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    if (mode === 'flood') return { content: [{ type: 'text', text: 'x'.repeat(32 * 1024 * 1024) }] };
    const text = request.params.arguments?.text;
    if (text === 'wait') {
      // Waits until its client cancels the request (notifications/cancelled), and notes that it was told.
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, 60_000);
        extra.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          writeFileSync(process.env.MCP_FIXTURE_CANCELLED_FILE, `cancelled ${request.params.name}`);
          resolve();
        });
      });
      return { content: [{ type: 'text', text: 'waited' }] };
    }
    // Tells its client the tool list changed (the test rewrote the file first).
    if (text === 'announce') await server.sendToolListChanged();
    if (text === 'fail') return { isError: true, content: [{ type: 'text', text: 'the fixture was asked to fail' }] };
    return { content: [{ type: 'text', text: `${request.params.name}: ${text}` }] };
  });
  server.connect(new StdioServerTransport());
}
