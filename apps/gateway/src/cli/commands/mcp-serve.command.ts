import type { Command } from 'commander';
import { loadConfig } from '../../config/app.config';
import { keyOption } from '../cli.options';

export function registerMcpServeCommand(mcp: Command): void {
  mcp
    .command('serve')
    .description('serve Toolgate to an MCP client over stdin/stdout (search_tools, describe_tool, call_tool, run_task); logs go to stderr')
    .addOption(keyOption())
    .action(async (options: { key?: string }) => {
      const config = loadConfig();
      const { serveMcpStdio } = await import('../../mcp/mcp-stdio.server');
      await serveMcpStdio(config, options.key);
    });
}
