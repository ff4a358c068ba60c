import { createPlanner, type PlanningCandidate, type PlanningPrincipal, plannerEnvSchema, plannerOptionsFromEnv } from '@toolgate/planner';
import { defineTool, toDescriptor } from '@toolgate/sdk';
import { chatCompletion, errorReply, type OpenAIWireServer, startOpenAIWireServer } from '../support/openai-wire-server';

/**
 * TOOLGATE_PLANNER=auto, the default once a model is configured: the deterministic planner answers
 * what it is sure of without a request; below the threshold the task goes to the model (the scripted
 * OpenAI-wire server), and when the model fails the deterministic plan stands.
 */

const COMPLETIONS = '/v1/chat/completions';
const principal: PlanningPrincipal = { tenant: 'acme', subject: 'alice', roles: [] };
const limits = { timeoutMs: 1000, maxConcurrency: 1, retries: 0, idempotent: true };
const cityTool = (name: string, description: string) =>
  defineTool({
    name,
    title: description,
    description,
    category: ['weather'],
    tags: [],
    inputSchema: { type: 'object', properties: { city: { type: 'string', description: 'City name' } }, required: ['city'], additionalProperties: false },
    outputSchema: { type: 'object' },
    examples: [],
    permissions: { scopes: [], risk: 'read' },
    limits,
    run: async () => ({}),
  });
const quote = defineTool({
  name: 'quote',
  title: 'Stock quote',
  description: 'Latest stock price for a ticker symbol.',
  category: ['finance'],
  tags: [],
  inputSchema: { type: 'object', properties: { symbol: { type: 'string' } }, required: ['symbol'], additionalProperties: false },
  outputSchema: { type: 'object' },
  examples: [],
  permissions: { scopes: [], risk: 'read' },
  limits,
  run: async () => ({}),
});
const asCandidates = (...tools: [string, Parameters<typeof toDescriptor>[0]][]): PlanningCandidate[] =>
  tools.map(([namespace, tool], i) => ({ id: `${namespace}/${tool.name}`, version: '1.0.0', descriptor: toDescriptor(tool), score: 1 / (i + 1), rank: i + 1 }));
const clear = asCandidates(['weather', cityTool('current', 'Current weather and temperature in a city.')], ['finance', quote]);
const step = (tool: string, args: Record<string, unknown>) => ({ id: 's1', tool, arguments: JSON.stringify(args), dependsOn: [], reason: 'model' });
const planReply = (steps: unknown[]) => chatCompletion({ content: JSON.stringify({ decision: 'USE_TOOLS', question: null, explanation: null, missing: [], steps }) });

describe('TOOLGATE_PLANNER=auto', () => {
  let server: OpenAIWireServer;
  const planner = () => createPlanner(plannerOptionsFromEnv(plannerEnvSchema.parse({ OPENAI_BASE_URL: server.baseURL, TOOLGATE_LLM_MAX_RETRIES: '0' })));

  beforeEach(async () => {
    server = await startOpenAIWireServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('is the default with a model configured, and answers a task it is sure of without asking the model', async () => {
    const auto = planner();
    expect(auto.kind).toBe('auto');
    const plan = await auto.plan({ text: 'What is the current weather in Oslo?', images: [] }, clear, principal);
    expect(plan).toMatchObject({ decision: 'USE_TOOLS', planner: 'deterministic', steps: [{ tool: 'weather/current@1.0.0', arguments: { city: 'Oslo' } }] });
    expect(plan.confidence).toBeGreaterThanOrEqual(0.6);
    expect(server.requests).toHaveLength(0);
  });

  it('hands a plan below the threshold to the model, and says so', async () => {
    // Two tools the text cannot tell apart: the deterministic pick is a coin toss.
    const twins = asCandidates(['weather', cityTool('current', 'Current weather and temperature in a city.')], ['meteo', cityTool('now', 'Current weather and temperature in a city.')]);
    server.script(COMPLETIONS, planReply([step('meteo__now', { city: 'Bergen' })]));
    const plan = await planner().plan({ text: 'What is the current weather in Bergen?', images: [] }, twins, principal);
    expect(server.requests).toHaveLength(1);
    expect(plan).toMatchObject({ decision: 'USE_TOOLS', planner: 'llm', steps: [{ tool: 'meteo/now@1.0.0', arguments: { city: 'Bergen' } }] });
    expect(plan.explanation).toContain('escalated to the LLM planner');
  });

  it('keeps the deterministic plan, with why, when the model fails', async () => {
    server.script(COMPLETIONS, errorReply(503, 'overloaded', 0));
    const plan = await planner().plan({ text: 'What is the current weather?', images: [] }, clear, principal);
    expect(server.requests).toHaveLength(1);
    expect(plan).toMatchObject({ decision: 'CLARIFY', planner: 'deterministic', missing: [{ path: '/city' }] });
    expect(plan.explanation).toMatch(/the LLM planner was asked .* but failed with UNAVAILABLE/);
  });

  it('escalates a selection too, and TOOLGATE_PLANNER_ESCALATE_BELOW=0 never does', async () => {
    server.script(COMPLETIONS, chatCompletion({ toolCalls: [{ name: 'weather__current', arguments: { city: 'Oslo' } }] }));
    const selection = await planner().select({ text: 'What is the current weather?', images: [] }, clear, principal);
    expect(selection).toMatchObject({ decision: 'USE_TOOLS', planner: 'llm', calls: [{ tool: 'weather/current@1.0.0', arguments: { city: 'Oslo' } }] });

    const never = createPlanner(plannerOptionsFromEnv(plannerEnvSchema.parse({ OPENAI_BASE_URL: server.baseURL, TOOLGATE_PLANNER_ESCALATE_BELOW: '0' })));
    const kept = await never.plan({ text: 'What is the current weather?', images: [] }, clear, principal);
    expect(kept).toMatchObject({ decision: 'CLARIFY', planner: 'deterministic' });
    expect(server.requests).toHaveLength(1);
  });
});
