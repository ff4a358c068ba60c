import type { Command } from 'commander';
import { withCore } from '../cli.options';
import { printJson, printTable, truncate } from '../cli.output';

export function registerMcpServersCommand(mcp: Command): void {
  mcp
    .command('servers')
    .description('connect to the MCP servers in the config file (mcpServers) and show each one: state, protocol version, tools, last error')
    .option('--json', 'print JSON only')
    .action(async (options: { json?: boolean }) => {
      await withCore(undefined, async (core) => {
        core.access.assertAdmin(core.principal, 'listing MCP servers');
        const servers = core.mcp.statuses();
        if (options.json) return printJson(servers);
        if (servers.length === 0) {
          process.stdout.write(`no MCP servers configured (add mcpServers to ${core.access.current.source ?? 'toolgate.config.yaml'})\n`);
          return;
        }
        printTable(
          ['server', 'transport', 'state', 'protocol', 'version', 'tools', 'refused', 'last error'],
          servers.map((s) => [s.name, s.transport, s.state, s.protocolVersion ?? '', s.serverVersion ?? '', s.toolCount, s.refusedTools.length, truncate(s.lastError ?? '', 60)]),
        );
      });
    });
}
