import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRetriever, type ToolRetriever } from '@toolgate/retrieval';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import type { Plan, PlanningCandidate } from '../plan/plan.types';
import { Planner } from '../planning/planner.port';
import { chainGraph, evaluatePlanner, type PlanSampleRecord } from './plan.evaluator';
import { readTaskBench } from './taskbench.reader';

/** Answers from a script keyed by the task text: the evaluator's bookkeeping is what is under test, not a planner. */
class ScriptedPlanner extends Planner {
  readonly kind = 'scripted';
  constructor(private readonly script: Record<string, (candidates: PlanningCandidate[]) => Plan>) {
    super();
  }
  async plan(task: { text: string }, candidates: PlanningCandidate[]): Promise<Plan> {
    const answer = this.script[task.text];
    if (!answer) throw new ToolgateError(ErrorCode.UNAVAILABLE, 'the model went away');
    return answer(candidates);
  }
  select(): never {
    throw new Error('not used');
  }
  replan(): never {
    throw new Error('not used');
  }
}

const step = (id: string, tool: string, dependsOn: string[] = []) => ({ id, tool, arguments: {}, dependsOn, reason: `because ${tool}` });

describe('evaluatePlanner', () => {
  let dir: string;
  let retriever: ToolRetriever;
  const tools = [
    { id: 'flight_search', desc: 'Search flights between two cities on a date' },
    { id: 'flight_book', desc: 'Book a seat on a flight found by search' },
    { id: 'hotel_book', desc: 'Book a hotel room in a city' },
  ];
  const samples = [
    { id: 't1', user_request: 'Search flights to Paris and book a seat', task_nodes: ['flight_search', 'flight_book'], type: 'chain' },
    { id: 't2', user_request: 'Book a hotel room in Rome', task_nodes: ['hotel_book'], type: 'single' },
    { id: 't3', user_request: 'Book a hotel in Oslo', task_nodes: ['hotel_book'], type: 'single' },
  ];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plan-eval-'));
    const links = (nodes: string[]) => nodes.slice(1).map((target, i) => ({ source: nodes[i], target }));
    await writeFile(join(dir, 'tool_desc.json'), JSON.stringify({ nodes: tools }));
    await writeFile(join(dir, 'graph_desc.json'), JSON.stringify({ nodes: tools, links: [{ source: 'flight_search', target: 'flight_book' }] }));
    await writeFile(join(dir, 'data.json'), samples.map((s) => JSON.stringify({ ...s, task_nodes: s.task_nodes.map((task) => ({ task })), task_links: links(s.task_nodes) })).join('\n'));
    await writeFile(join(dir, 'split_ids.json'), JSON.stringify({ test_ids: { chain: ['t1', 't2', 't3'] } }));
    retriever = await createRetriever({ embedder: 'none' });
  });
  afterAll(async () => {
    await retriever.index.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('scores each task, per type, against the retrieval-chain floor, and records every sample', async () => {
    const planner = new ScriptedPlanner({
      // Right tools, link reversed: node-F1 1, link-F1 0.
      'Search flights to Paris and book a seat': () => ({ id: 'p1', decision: 'USE_TOOLS', steps: [step('s1', 'flight_book'), step('s2', 'flight_search', ['s1'])] }),
      'Book a hotel room in Rome': () => ({ id: 'p2', decision: 'CLARIFY', question: 'Which dates?', steps: [] }),
      // 't3' is not scripted: a typed failure scores as an empty plan and is counted.
    });
    const records: PlanSampleRecord[] = [];
    const result = await evaluatePlanner(await readTaskBench(dir), retriever, () => planner, { split: 'test', k: 3, learn: false, usagePerTool: 0, onSample: (r) => records.push(r) });

    expect(result.samples).toBe(3);
    expect(result.multiStepSamples).toBe(1);
    // Node-F1: (1 + 0 + 0) / 3; link-F1 over the one multi-step task: 0.
    expect(result.nodeF1).toBeCloseTo(1 / 3);
    expect(result.linkF1).toBe(0);
    expect(result.decisions).toEqual({ USE_TOOLS: 1, CLARIFY: 1, 'FAILED:UNAVAILABLE': 1 });
    expect(result.byType.chain).toMatchObject({ samples: 1, nodeF1: 1, linkF1: 0 });
    expect(result.byType.single).toMatchObject({ samples: 2, nodeF1: 0, multiStepSamples: 0 });

    expect(result.floors.map((f) => f.k)).toEqual([1, 2, 3]);
    // BM25 ranks hotel_book first for both hotel tasks, so the top-1 chain scores them 1 each.
    const top1 = result.floors[0];
    expect(top1.linkF1).toBe(0);
    expect(top1.nodeF1).toBeGreaterThanOrEqual(2 / 3);
    expect(result.floor.nodeF1 + result.floor.linkF1).toBe(Math.max(...result.floors.map((f) => f.nodeF1 + f.linkF1)));

    expect(records.map((r) => [r.id, r.type, r.decision, r.nodeF1, r.linkF1])).toEqual([
      ['t1', 'chain', 'USE_TOOLS', 1, 0],
      ['t2', 'single', 'CLARIFY', 0, undefined],
      ['t3', 'single', 'FAILED:UNAVAILABLE', 0, undefined],
    ]);
    expect(records[0]).toMatchObject({
      gold: { nodes: ['flight_search', 'flight_book'], links: [['flight_search', 'flight_book']] },
      predicted: { nodes: ['flight_book', 'flight_search'], links: [['flight_book', 'flight_search']] },
      why: 's1 flight_book: because flight_book; s2 flight_search: because flight_search',
    });
    expect(records[1].why).toBe('Which dates?');
    expect(records[2].why).toBe('the model went away');
  });

  it("gives each tool the graph's links from it as declared companions, so retrieval ranks them together", async () => {
    const seen: PlanningCandidate[] = [];
    const planner = new ScriptedPlanner({
      'Search flights to Paris and book a seat': (candidates) => {
        seen.push(...candidates);
        return { id: 'p1', decision: 'USE_TOOLS', steps: [] };
      },
      'Book a hotel room in Rome': () => ({ id: 'p2', decision: 'USE_TOOLS', steps: [] }),
      'Book a hotel in Oslo': () => ({ id: 'p3', decision: 'USE_TOOLS', steps: [] }),
    });
    await evaluatePlanner(await readTaskBench(dir), retriever, () => planner, { split: 'test', k: 3, learn: false, usagePerTool: 0 });
    expect(seen.find((c) => c.id === 'flight_search')?.descriptor.companions).toEqual(['flight_book']);
    expect(seen.find((c) => c.id === 'flight_book')?.descriptor.companions).toBeUndefined();
  });

  it('chains a ranking in order', () => {
    expect(chainGraph(['a', 'b', 'c'])).toEqual({
      nodes: ['a', 'b', 'c'],
      links: [
        ['a', 'b'],
        ['b', 'c'],
      ],
    });
    expect(chainGraph(['a'])).toEqual({ nodes: ['a'], links: [] });
  });
});
