import { buildCli } from './cli.program';

const names = (args: string[]) => buildCli(args).commands.map((command) => command.name());
const ALL = ['serve', 'worker', 'dev', 'tools', 'search', 'plan', 'run', 'runs', 'plugins', 'examples', 'eval', 'mcp', 'metrics'];

describe('the command table', () => {
  it('registers only the command the first word names, so a command loads only its own code', () => {
    expect(names(['tools', 'list', '--json'])).toEqual(['tools']);
    expect(buildCli(['tools', 'list']).commands[0].commands.map((command) => command.name())).toEqual(['list', 'show', 'call']);
    expect(names(['--key', 'k', 'search', 'x'])).toEqual(ALL);
    expect(names(['plugin', 'list'])).toEqual(['plugins']);
    expect(names(['eval', 'plan'])).toEqual(['eval']);
  });

  it('registers every command for help, a bare call and a word it does not know (so commander can suggest one)', () => {
    expect(names([])).toEqual(ALL);
    expect(names(['--help'])).toEqual(ALL);
    expect(names(['help', 'tools'])).toEqual(ALL);
    expect(names(['tool', 'list'])).toEqual(ALL);
  });
});
