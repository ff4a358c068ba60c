import { Command } from 'commander';
import { registerEvalArgumentsCommand } from './commands/eval-arguments.command';
import { registerEvalPlanCommand } from './commands/eval-plan.command';
import { registerEvalRetrievalCommand } from './commands/eval-retrieval.command';
import { registerExamplesImportCommand } from './commands/examples-import.command';
import { registerExamplesListCommand } from './commands/examples-list.command';
import { registerMcpServeCommand } from './commands/mcp-serve.command';
import { registerMcpServersCommand } from './commands/mcp-servers.command';
import { registerMetricsCommand } from './commands/metrics.command';
import { registerPlanCommand } from './commands/plan.command';
import { registerPluginNewCommand } from './commands/plugin-new.command';
import { registerPluginsListCommand } from './commands/plugins-list.command';
import { registerRunCommand } from './commands/run.command';
import { registerRunsCommands } from './commands/runs.command';
import { registerSearchCommand } from './commands/search.command';
import { registerServeCommand } from './commands/serve.command';
import { registerToolsListCommand } from './commands/tools-list.command';
import { registerToolsShowCommand } from './commands/tools-show.command';
import { registerWorkerCommand } from './commands/worker.command';

/** The commands in the order `toolgate --help` lists them; each one's options and action live in its own file. */
export function buildCli(): Command {
  const program = new Command('toolgate').description('Toolgate: find, plan and safely run the few tools a caller may use.').version('0.1.0').showHelpAfterError();
  registerServeCommand(program);
  registerWorkerCommand(program);
  const tools = program.command('tools').description('the tool catalog');
  registerToolsListCommand(tools);
  registerToolsShowCommand(tools);
  registerSearchCommand(program);
  registerPlanCommand(program);
  registerRunCommand(program);
  registerRunsCommands(program);
  const plugins = program.command('plugins').alias('plugin').description('plugin packages');
  registerPluginsListCommand(plugins);
  registerPluginNewCommand(plugins);
  const examples = program.command('examples').description('usage examples: queries that led to a tool, added to its index document');
  registerExamplesImportCommand(examples);
  registerExamplesListCommand(examples);
  const evaluation = program.command('eval').description('measure retrieval and planning on labelled sets');
  registerEvalRetrievalCommand(evaluation);
  registerEvalPlanCommand(evaluation);
  registerEvalArgumentsCommand(evaluation);
  const mcp = program.command('mcp').description('the Model Context Protocol: serve Toolgate to MCP clients, and the servers it imports tools from');
  registerMcpServeCommand(mcp);
  registerMcpServersCommand(mcp);
  registerMetricsCommand(program);
  return program;
}
