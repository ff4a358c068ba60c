import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { parseStepLine, readTaskBench } from './taskbench.reader';

describe('readTaskBench', () => {
  let dir: string;
  const tools = {
    nodes: [
      { id: 'search', desc: 'Search flights', domain: ['Flight'] },
      { id: 'book', desc: 'Book a flight' },
    ],
  };
  const graph = { nodes: tools.nodes, links: [{ source: 'search', target: 'book' }] };
  const sample = (id: string, nodes = ['search', 'book']) =>
    JSON.stringify({
      id,
      user_request: 'Find and book a flight',
      task_steps: ['Step 1 Call search to find flights'],
      task_nodes: nodes.map((task) => ({ task })),
      task_links: [{ source: 'search', target: 'book' }],
    });

  async function write(files: Record<string, string>) {
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  }

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'taskbench-'));
    await write({
      'tool_desc.json': JSON.stringify(tools),
      'graph_desc.json': JSON.stringify(graph),
      'data.json': `${sample('1')}\n${sample('2')}\n`,
      'split_ids.json': JSON.stringify({ test_ids: { chain: ['2'] } }),
    });
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('reads tools, edges, samples and test ids', async () => {
    const set = await readTaskBench(dir);
    expect(set.tools.map((t) => t.id)).toEqual(['search', 'book']);
    expect(set.edges).toEqual([{ source: 'search', target: 'book' }]);
    expect(set.samples[0]).toMatchObject({ id: '1', nodes: ['search', 'book'], links: [['search', 'book']] });
    expect([...set.testIds]).toEqual(['2']);
  });

  async function failure(): Promise<ToolgateError> {
    try {
      await readTaskBench(dir);
    } catch (error) {
      if (ToolgateError.is(error, ErrorCode.INVALID_ARGUMENTS)) return error;
      throw error;
    }
    throw new Error('expected INVALID_ARGUMENTS');
  }

  it('names the broken line of data.json', async () => {
    await write({ 'data.json': `${sample('1')}\n{"id": "2", "user_request": \n` });
    expect((await failure()).message).toMatch(/data\.json:2 is not valid JSON/);
    await write({ 'data.json': `${sample('1')}\n${sample('2', ['search', 'teleport'])}\n` });
    const error = await failure();
    expect(error.details[0]).toEqual({ path: 'line 2', message: 'task node "teleport" is not a tool of tool_desc.json' });
  });

  it('names the broken entry of tool_desc.json, graph_desc.json and split_ids.json', async () => {
    await write({
      'tool_desc.json': JSON.stringify({
        nodes: [
          { id: 'search', desc: 'x' },
          { id: 'search', desc: 'y' },
        ],
      }),
    });
    expect((await failure()).details[0]).toEqual({ path: '/nodes/1/id', message: 'duplicate tool "search"' });
    await write({ 'tool_desc.json': JSON.stringify(tools), 'graph_desc.json': JSON.stringify({ links: [{ source: 'search', target: 'fly' }] }) });
    expect((await failure()).details[0]).toEqual({ path: '/links/0/target', message: '"fly" is not a tool of tool_desc.json' });
    await write({ 'graph_desc.json': JSON.stringify(graph), 'split_ids.json': JSON.stringify({ test_ids: ['9'] }) });
    expect((await failure()).message).toMatch(/split_ids\.json.*"9" is not an id of data\.json/);
  });

  it('reports a missing file by name', async () => {
    await rm(join(dir, 'graph_desc.json'));
    expect((await failure()).message).toMatch(/cannot read .*graph_desc\.json/);
  });
});

describe('parseStepLine', () => {
  it('reads the tool and the text of a step', () => {
    expect(parseStepLine('Step 2 Call flight_search to find flights to Oslo')).toEqual({ tool: 'flight_search', text: 'find flights to Oslo' });
    expect(parseStepLine('nothing here')).toBeNull();
  });
});
