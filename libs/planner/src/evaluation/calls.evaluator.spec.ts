import { createRetriever, type ToolRetriever } from '@toolgate/retrieval';
import { ErrorCode } from '@toolgate/sdk';
import type { PlanningCandidate, Selection } from '../plan/plan.types';
import { Planner } from '../planning/planner.port';
import type { BfclGoldCall, BfclSample } from './bfcl.reader';
import { type CallSampleRecord, evaluateCalls, tallyConfidence } from './calls.evaluator';

/** Selections from a script keyed by the request: the evaluator's bookkeeping is under test, not a planner. */
class ScriptedPlanner extends Planner {
  readonly kind = 'scripted';
  readonly offered: string[][] = [];
  constructor(private readonly script: Record<string, Omit<Selection, 'candidates'>>) {
    super();
  }
  async select(task: { text: string }, candidates: PlanningCandidate[]): Promise<Selection> {
    this.offered.push(candidates.map((c) => c.id));
    return { ...this.script[task.text], candidates };
  }
  plan(): never {
    throw new Error('not used');
  }
  replan(): never {
    throw new Error('not used');
  }
}

const fn = (name: string, description: string) => ({ name, description, parameters: { type: 'dict', properties: { city: { type: 'string' } }, required: ['city'] } });
const call = (tool: string, city: string) => ({ tool, arguments: { city }, reason: 'scripted' });

describe('evaluateCalls', () => {
  let retriever: ToolRetriever;
  beforeAll(async () => {
    retriever = await createRetriever({ embedder: 'none' });
  });
  afterAll(() => retriever.index.close());

  const functions = [fn('weather', 'Current weather of a city'), fn('hotels', 'Hotels in a city')];
  const samples: BfclSample[] = [
    { id: 'p1', text: 'weather in Paris and Rome', functions },
    { id: 'p2', text: 'weather in Oslo', functions },
    { id: 'p3', text: 'weather in Bergen', functions },
    { id: 'i1', text: 'tell me a joke', functions },
    { id: 'i2', text: 'sing a song', functions },
  ];
  const answers = new Map<string, BfclGoldCall[]>([
    [
      'p1',
      [
        { name: 'weather', arguments: { city: ['Paris'] } },
        { name: 'weather', arguments: { city: ['Rome'] } },
      ],
    ],
    ['p2', [{ name: 'weather', arguments: { city: ['Oslo'] } }]],
    ['p3', [{ name: 'weather', arguments: { city: ['Bergen'] } }]],
  ]);

  it('scores AST accuracy, selection, abstention and the failure breakdown by hand', async () => {
    const planner = new ScriptedPlanner({
      'weather in Paris and Rome': { decision: 'USE_TOOLS', calls: [call('weather', 'Rome'), call('weather', 'Paris')] },
      'weather in Oslo': { decision: 'USE_TOOLS', calls: [call('weather@0', 'Bergen')] },
      'weather in Bergen': { decision: 'CLARIFY', question: 'Which city?', calls: [{ tool: 'weather', arguments: {}, reason: 'needs a city' }] },
      'tell me a joke': { decision: 'NO_MATCH', explanation: 'nothing fits', calls: [] },
      'sing a song': { decision: 'CLARIFY', question: 'Which city?', calls: [call('hotels', 'x')] },
    });
    const records: CallSampleRecord[] = [];
    const onSample = (r: CallSampleRecord) => records.push(r);
    const result = await evaluateCalls(samples.slice(0, 3), answers, retriever, planner, { onSample });
    expect(result).toMatchObject({ samples: 3, relevantSamples: 3, irrelevantSamples: 0 });
    // p1 right in any order; p2 a wrong value; p3 a CLARIFY (no call).
    expect(result.astAccuracy).toBeCloseTo(1 / 3);
    // Every plan named the weather function (the CLARIFY too).
    expect(result.selectionAccuracy).toBe(1);
    expect(result.falseClarifyRate).toBeCloseTo(1 / 3);
    expect(result.noMatchRate).toBe(0);
    // The CLARIFY's proposed call is in the breakdown: it lacked the required city.
    expect(result.failures).toEqual({
      noCall: 1,
      wrongCount: 0,
      wrongFunction: 0,
      arguments: { missing_required: { string: 1 }, unexpected_param: {}, wrong_type: {}, wrong_value: { string: 1 }, missing_optional: {} },
    });
    expect(result.decisions).toEqual({ USE_TOOLS: 2, CLARIFY: 1 });

    // Without answers every sample is irrelevance: i1 abstained; i2's CLARIFY picked a tool, which is not an abstention though BFCL would see no call.
    const irrelevance = await evaluateCalls(samples.slice(3), undefined, retriever, planner, { onSample });
    expect(irrelevance).toMatchObject({ samples: 2, relevantSamples: 0, irrelevantSamples: 2, abstainAccuracy: 0.5, irrelevantNoCall: 1 });

    // Every function is offered, whatever the funnel matched.
    for (const offered of planner.offered) expect([...offered].sort()).toEqual(['hotels', 'weather']);
    expect(records.map((r) => [r.id, r.correct])).toEqual([
      ['p1', true],
      ['p2', false],
      ['p3', false],
      ['i1', true],
      ['i2', false],
    ]);
    expect(records[1]).toMatchObject({ predicted: [{ name: 'weather', arguments: { city: 'Bergen' } }], verdict: { ok: false, kind: 'wrong_calls' } });
    expect(records[3]).toMatchObject({ decision: 'NO_MATCH', why: 'nothing fits' });
    expect(records[3].gold).toBeUndefined();
  });

  it('refuses an answer file that does not cover the questions', async () => {
    const planner = new ScriptedPlanner({});
    await expect(evaluateCalls(samples, new Map([['p1', []]]), retriever, planner)).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENTS,
      message: expect.stringMatching(/no answer for 4 sample/),
    });
  });
});

describe('tallyConfidence', () => {
  it('counts the share right per planner and per fifth of confidence, 1 in the top band', () => {
    const tally = tallyConfidence([
      { planner: 'deterministic', confidence: 0.95, correct: true },
      { planner: 'deterministic', confidence: 1, correct: false },
      { planner: 'deterministic', confidence: 0.5, correct: false },
      { planner: 'llm', confidence: 0.9, correct: true },
      { planner: 'llm', correct: true },
    ]);
    expect(tally.byPlanner).toEqual({ deterministic: { samples: 3, accuracy: 1 / 3 }, llm: { samples: 2, accuracy: 1 } });
    expect(tally.calibration).toEqual([
      { from: 0.4, to: 0.6, samples: 1, accuracy: 0 },
      { from: 0.8, to: 1, samples: 3, accuracy: 2 / 3 },
    ]);
  });
});
