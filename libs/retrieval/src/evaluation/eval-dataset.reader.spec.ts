import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode } from '@toolgate/sdk';
import { evalToolDocument, readEvalQueries, readEvalTools, readToolGraph } from './eval-dataset.reader';

const dir = mkdtempSync(join(tmpdir(), 'eval-'));
const file = (name: string, lines: unknown[]) => {
  const path = join(dir, name);
  writeFileSync(path, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n'));
  return path;
};

describe('eval dataset reader', () => {
  it('reads tools and queries, skipping blank lines', async () => {
    const tools = await readEvalTools(file('t.jsonl', [{ id: 'a', name: 'a', description: 'x' }, '', { id: 'b', name: 'b', description: 'y', text: 'b: y' }]));
    expect(tools.map((t) => t.id)).toEqual(['a', 'b']);
    const queries = await readEvalQueries(file('q.jsonl', [{ qid: '1', query: 'q', gold: ['a'], split: 's' }]), new Set(['a', 'b']));
    expect(queries).toEqual([{ qid: '1', query: 'q', gold: ['a'], split: 's' }]);
  });

  it('names the file and line of a bad record', async () => {
    await expect(readEvalTools(file('bad.jsonl', [{ id: 'a', name: 'a', description: 'x' }, '{not json']))).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENTS,
      message: expect.stringMatching(/bad\.jsonl:2 is not valid JSON/),
    });
    await expect(
      readEvalTools(
        file('dup.jsonl', [
          { id: 'a', name: 'a', description: 'x' },
          { id: 'a', name: 'a', description: 'x' },
        ]),
      ),
    ).rejects.toMatchObject({ message: expect.stringContaining('duplicate tool id "a"') });
    await expect(readEvalQueries(file('q2.jsonl', [{ qid: '1', query: '', gold: [], split: 's' }]), new Set())).rejects.toMatchObject({
      message: expect.stringMatching(/q2\.jsonl:1: "query" must be .*; "gold" must be/),
    });
  });

  it('rejects gold ids that are not tools, and a missing file', async () => {
    await expect(readEvalQueries(file('q3.jsonl', [{ qid: '1', query: 'q', gold: ['ghost'], split: 's' }]), new Set(['a']))).rejects.toMatchObject({
      details: [{ path: expect.stringContaining('q3.jsonl:1'), message: 'gold tool "ghost" is not in tools.jsonl' }],
    });
    await expect(readEvalTools(join(dir, 'missing.jsonl'))).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENTS, message: expect.stringContaining('cannot read') });
  });

  it('reads declared companions from tools.jsonl or a TaskBench tool graph, refusing ids not in the set', async () => {
    const tools = await readEvalTools(
      file('c.jsonl', [
        { id: 'a', name: 'a', description: 'x', companions: ['b'] },
        { id: 'b', name: 'b', description: 'y' },
      ]),
    );
    expect(evalToolDocument(tools[0]).companions).toEqual(['b']);
    expect(evalToolDocument(tools[1]).companions).toBeUndefined();
    await expect(readEvalTools(file('c2.jsonl', [{ id: 'a', name: 'a', description: 'x', companions: ['zz'] }]))).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENTS,
      message: expect.stringContaining('zz'),
    });
    await expect(readEvalTools(file('c3.jsonl', [{ id: 'a', name: 'a', description: 'x', companions: 'b' }]))).rejects.toMatchObject({
      message: expect.stringContaining('"companions" must be an array'),
    });

    const graph = join(dir, 'graph_desc.json');
    writeFileSync(
      graph,
      JSON.stringify({
        nodes: [],
        links: [
          { source: 'b', target: 'a' },
          { source: 'a', target: 'b' },
        ],
      }),
    );
    expect((await readToolGraph(graph, tools)).map((t) => [t.id, t.companions])).toEqual([
      ['a', ['b']],
      ['b', ['a']],
    ]);
    writeFileSync(graph, JSON.stringify({ links: [{ source: 'a', target: 'nope' }] }));
    await expect(readToolGraph(graph, tools)).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENTS, message: expect.stringContaining('nope') });
    writeFileSync(graph, JSON.stringify({ links: 'a->b' }));
    await expect(readToolGraph(graph, tools)).rejects.toMatchObject({ message: expect.stringContaining('"links" must be an array') });
    await expect(readToolGraph(join(dir, 'missing.json'), tools)).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENTS, message: expect.stringContaining('cannot read the tool graph') });
  });
});
