#!/usr/bin/env node
// An MCP server on the official SDK v2 (stdio, serveStdio): it serves the 2026-07-28 revision to a
// client that negotiates it and 2025-11-25 to one that does not, so a test can show which era
// Toolgate's client reached. One tool, `reverse`, with an outputSchema (its answer is structuredContent).
const { McpServer } = require('@modelcontextprotocol/server');
const { serveStdio } = require('@modelcontextprotocol/server/stdio');
const { z } = require('zod');

serveStdio(() => {
  const server = new McpServer({ name: 'modern-fixture', version: '2.1.0' });
  server.registerTool(
    'reverse',
    {
      title: 'Reverse a text',
      description: 'Returns the text it is given with its characters in reverse order.',
      inputSchema: z.object({ text: z.string() }),
      outputSchema: z.object({ reversed: z.string() }),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    },
    async ({ text }) => {
      const reversed = [...text].reverse().join('');
      return { content: [{ type: 'text', text: JSON.stringify({ reversed }) }], structuredContent: { reversed } };
    },
  );
  return server;
});
