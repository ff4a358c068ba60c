import { join } from 'node:path';
import { readTaskBench, setF1, splitSamples } from '@toolgate/planner/evaluation';
import { ErrorCode, type ToolgateError } from '@toolgate/sdk';
import { type EvalPlanFlags, runPlanEval } from '../../apps/gateway/src/cli/commands/eval-plan.command';
import { datasetsDir } from '../support/datasets';
import { chatCompletion, type OpenAIWireServer, type RecordedRequest, startOpenAIWireServer } from '../support/openai-wire-server';

/** `toolgate eval plan --planner llm` end to end: UltraTool samples, the real openai client, scripted plans on the wire. */

const datasets = datasetsDir();
const dir = join(datasets, 'ultratool');
const COMPLETIONS = '/v1/chat/completions';
const flags: EvalPlanFlags = { dataset: dir, split: 'test', planner: 'llm', embedder: 'none', k: 5, limit: 3, learn: true };

interface CompletionBody {
  messages: { role: string; content: string | null }[];
  response_format?: { json_schema?: { schema: { properties: { steps: { items: { properties: { tool: { enum?: string[] } } } } } } } };
}
const bodyOf = (request: RecordedRequest) => request.body as CompletionBody;
/** The function names a plan request allows: its reply schema's enum of tools. */
const offeredIn = (request: RecordedRequest) => bodyOf(request).response_format?.json_schema?.schema.properties.steps.items.properties.tool.enum ?? [];
/** UltraTool ids have no namespace: `flight_search` goes out as the function `flight_search__`. */
const toolOf = (alias: string) => alias.replace(/__$/, '');

describe('eval plan --planner llm', () => {
  let server: OpenAIWireServer;
  beforeEach(async () => {
    server = await startOpenAIWireServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('plans each sample through the endpoint and scores the scripted plans against the gold chains', async () => {
    const dataset = await readTaskBench(dir);
    const samples = splitSamples(dataset, 'test').scored.slice(0, 3);
    // The model answers with the gold chain as far as the offered tools allow; the last sample drops its final tool.
    const offered: string[][] = [];
    for (const [i, sample] of samples.entries()) {
      server.script(COMPLETIONS, (request) => {
        const aliases = offeredIn(request);
        offered.push(aliases.map(toolOf));
        const chain = sample.nodes.filter((tool) => aliases.includes(`${tool}__`)).slice(0, i === 2 ? -1 : undefined);
        const steps = chain.map((tool, s) => ({ id: `s${s + 1}`, tool: `${tool}__`, arguments: '{}', dependsOn: s === 0 ? [] : [`s${s}`], reason: 'scripted' }));
        return chatCompletion({ content: JSON.stringify({ decision: 'USE_TOOLS', question: null, explanation: null, missing: [], steps }) });
      });
    }

    const { result } = await runPlanEval(flags, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-test-eval', TOOLGATE_LLM_MODEL: 'scripted-model' });

    expect(server.pending()).toEqual({ [COMPLETIONS]: 0 });
    const requests = server.requests.filter((r) => r.path === COMPLETIONS);
    expect(requests).toHaveLength(3);
    for (const [i, request] of requests.entries()) {
      // Each request carries its own task, and only that task's candidates as tools.
      expect(
        bodyOf(request)
          .messages.map((m) => m.content ?? '')
          .join('\n'),
      ).toContain(samples[i].request.trim().slice(0, 60));
      expect(offered[i].length).toBeGreaterThan(0);
    }
    const expected = samples.map((sample, i) => {
      const planned = sample.nodes.filter((tool) => offered[i].includes(tool)).slice(0, i === 2 ? -1 : undefined);
      const links = planned.slice(1).map((tool, s) => `${planned[s]}>${tool}`);
      const gold = sample.links.map(([a, b]) => `${a}>${b}`);
      return { node: setF1(planned, sample.nodes), link: setF1(links, gold), exact: setF1(planned, sample.nodes) === 1 ? 1 : 0 };
    });
    const mean = (pick: (e: (typeof expected)[number]) => number) => expected.reduce((sum, e) => sum + pick(e), 0) / expected.length;
    expect(result.samples).toBe(3);
    expect(result.decisions).toEqual({ USE_TOOLS: 3 });
    expect(result.nodeF1).toBeCloseTo(
      mean((e) => e.node),
      10,
    );
    expect(result.linkF1).toBeCloseTo(
      mean((e) => e.link),
      10,
    );
    expect(result.accuracy).toBeCloseTo(
      mean((e) => e.exact),
      10,
    );
    expect(result.nodeF1).toBeLessThan(1);
  });

  it('counts a sample whose plan failed with a typed error instead of stopping the run', async () => {
    server.script(COMPLETIONS, { status: 400, body: { error: { message: 'bad request', type: 'invalid_request_error', code: null, param: null } } });
    server.fallback(COMPLETIONS, chatCompletion({ content: JSON.stringify({ decision: 'NO_MATCH', question: null, explanation: 'nothing fits', missing: [], steps: [] }) }));
    const { result } = await runPlanEval({ ...flags, limit: 2 }, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-test-eval' });
    expect(result.samples).toBe(2);
    expect(Object.keys(result.decisions).sort()).toEqual([expect.stringMatching(/^FAILED:/), 'NO_MATCH']);
    expect(result.nodeF1).toBe(0);
  });

  it('with --planner auto, reports how many tasks escalated and the scores of each path', async () => {
    server.fallback(COMPLETIONS, chatCompletion({ content: JSON.stringify({ decision: 'NO_MATCH', question: null, explanation: 'nothing fits', missing: [], steps: [] }) }));
    const { result } = await runPlanEval({ ...flags, planner: 'auto', limit: 6 }, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-test-eval' });
    const paths = Object.entries(result.byPlanner).map(([name, report]) => [name, report.samples] as const);
    expect(paths.reduce((sum, [, n]) => sum + n, 0)).toBe(6);
    // Every escalated task is one request to the model (none failed), and only those went to it.
    const escalated = result.byPlanner.llm?.samples ?? 0;
    expect(server.requests.filter((r) => r.path === COMPLETIONS)).toHaveLength(escalated);
    expect(paths.map(([name]) => name).every((name) => name === 'deterministic' || name === 'llm')).toBe(true);
  });

  it('refuses to start without an endpoint, naming OPENAI_BASE_URL and OPENAI_API_KEY', async () => {
    const error = (await runPlanEval(flags, {}).catch((e: unknown) => e)) as ToolgateError;
    expect(error.code).toBe(ErrorCode.INVALID_CONFIG);
    expect(error.message).toMatch(/OPENAI_API_KEY.*OPENAI_BASE_URL/);
    expect(error.details?.map((d) => d.path)).toEqual(['OPENAI_API_KEY', 'OPENAI_BASE_URL']);
    expect(server.requests).toHaveLength(0);
  });
});
