import { Command } from 'commander';

type Register = (parent: Command) => void;

/*
 * Each command's module is required only when the command line names its word: a command file
 * imports what its action needs (the planner, the index, the whole app), and `toolgate tools list`
 * should not pay for `eval plan`'s imports. `require` keeps buildCli synchronous; the type comes from
 * the module itself.
 */
const serve: Register = (p) => (require('./commands/serve.command') as typeof import('./commands/serve.command')).registerServeCommand(p);
const worker: Register = (p) => (require('./commands/worker.command') as typeof import('./commands/worker.command')).registerWorkerCommand(p);
const dev: Register = (p) => (require('./commands/dev.command') as typeof import('./commands/dev.command')).registerDevCommand(p);
const toolsList: Register = (p) => (require('./commands/tools-list.command') as typeof import('./commands/tools-list.command')).registerToolsListCommand(p);
const toolsShow: Register = (p) => (require('./commands/tools-show.command') as typeof import('./commands/tools-show.command')).registerToolsShowCommand(p);
const toolsCall: Register = (p) => (require('./commands/tools-call.command') as typeof import('./commands/tools-call.command')).registerToolsCallCommand(p);
const search: Register = (p) => (require('./commands/search.command') as typeof import('./commands/search.command')).registerSearchCommand(p);
const plan: Register = (p) => (require('./commands/plan.command') as typeof import('./commands/plan.command')).registerPlanCommand(p);
const run: Register = (p) => (require('./commands/run.command') as typeof import('./commands/run.command')).registerRunCommand(p);
const runs: Register = (p) => (require('./commands/runs.command') as typeof import('./commands/runs.command')).registerRunsCommands(p);
const pluginsList: Register = (p) => (require('./commands/plugins-list.command') as typeof import('./commands/plugins-list.command')).registerPluginsListCommand(p);
const pluginNew: Register = (p) => (require('./commands/plugin-new.command') as typeof import('./commands/plugin-new.command')).registerPluginNewCommand(p);
const pluginValidate: Register = (p) => (require('./commands/plugin-validate.command') as typeof import('./commands/plugin-validate.command')).registerPluginValidateCommand(p);
const pluginsInstall: Register = (p) => (require('./commands/plugins-install.command') as typeof import('./commands/plugins-install.command')).registerPluginsInstallCommands(p);
const examplesImport: Register = (p) => (require('./commands/examples-import.command') as typeof import('./commands/examples-import.command')).registerExamplesImportCommand(p);
const examplesList: Register = (p) => (require('./commands/examples-list.command') as typeof import('./commands/examples-list.command')).registerExamplesListCommand(p);
const evalRetrieval: Register = (p) => (require('./commands/eval-retrieval.command') as typeof import('./commands/eval-retrieval.command')).registerEvalRetrievalCommand(p);
const evalPlan: Register = (p) => (require('./commands/eval-plan.command') as typeof import('./commands/eval-plan.command')).registerEvalPlanCommand(p);
const evalArguments: Register = (p) => (require('./commands/eval-arguments.command') as typeof import('./commands/eval-arguments.command')).registerEvalArgumentsCommand(p);
const evalCalls: Register = (p) => (require('./commands/eval-calls.command') as typeof import('./commands/eval-calls.command')).registerEvalCallsCommand(p);
const mcpServe: Register = (p) => (require('./commands/mcp-serve.command') as typeof import('./commands/mcp-serve.command')).registerMcpServeCommand(p);
const mcpServers: Register = (p) => (require('./commands/mcp-servers.command') as typeof import('./commands/mcp-servers.command')).registerMcpServersCommand(p);
const metrics: Register = (p) => (require('./commands/metrics.command') as typeof import('./commands/metrics.command')).registerMetricsCommand(p);

/** A command that groups others (`toolgate tools list`, ...). */
const group =
  (name: string, description: string, members: Register[], alias?: string): Register =>
  (p) => {
    const command = p.command(name).description(description);
    if (alias) command.alias(alias);
    for (const member of members) member(command);
  };

/** The top-level words in the order `toolgate --help` lists them (an alias names the same entry). */
const COMMANDS: [words: string[], register: Register][] = [
  [['serve'], serve],
  [['worker'], worker],
  [['dev'], dev],
  [['tools'], group('tools', 'the tool catalog', [toolsList, toolsShow, toolsCall])],
  [['search'], search],
  [['plan'], plan],
  [['run'], run],
  [['runs'], runs],
  [['plugins', 'plugin'], group('plugins', 'plugin packages', [pluginsList, pluginNew, pluginValidate, pluginsInstall], 'plugin')],
  [['examples'], group('examples', 'usage examples: queries that led to a tool, added to its index document', [examplesImport, examplesList])],
  [['eval'], group('eval', 'measure retrieval and planning on labelled sets', [evalRetrieval, evalPlan, evalArguments, evalCalls])],
  [['mcp'], group('mcp', 'the Model Context Protocol: serve Toolgate to MCP clients, and the servers it imports tools from', [mcpServe, mcpServers])],
  [['metrics'], metrics],
];

/**
 * The command table. Given the command line's arguments, only the command its first word names is
 * registered; with no word, an unknown one (commander then suggests the closest) or `help`, all are.
 */
export function buildCli(args: readonly string[] = process.argv.slice(2)): Command {
  const program = new Command('toolgate').description('Toolgate: find, plan and safely run the few tools a caller may use.').version('0.1.0').showHelpAfterError();
  const word = args.find((arg) => !arg.startsWith('-'));
  const named = COMMANDS.find(([words]) => word !== undefined && words.includes(word));
  for (const [, register] of named ? [named] : COMMANDS) register(program);
  return program;
}
