import { createPlanner, type PlanningCandidate, type PlanningPrincipal, plannerEnvSchema, plannerOptionsFromEnv } from '@toolgate/planner';
import { defaultModelDir, OnnxEmbedder } from '@toolgate/retrieval';
import { defineTool, type JsonSchema, toDescriptor } from '@toolgate/sdk';

/**
 * The deterministic planner with the real local model (the default without an LLM) on requests that never name
 * the tool they are for. A request that gives every value the tool requires is for it; one that gives none, or
 * asks for something the tool never speaks of, is not. The model is fetched by `npm test`; missing is a failure.
 */

const principal: PlanningPrincipal = { tenant: 'acme', subject: 'alice', roles: [] };
const tool = (name: string, description: string, properties: Record<string, JsonSchema>, required: string[] = []) =>
  defineTool({
    name,
    title: name,
    description,
    category: [],
    tags: [],
    inputSchema: { type: 'object', properties, required, additionalProperties: false },
    outputSchema: { type: 'object' },
    examples: [],
    permissions: { scopes: [], risk: 'read' },
    limits: { timeoutMs: 1000, maxConcurrency: 1, retries: 0, idempotent: true },
    run: async () => ({}),
  });
const only = (namespace: string, t: ReturnType<typeof tool>): PlanningCandidate[] => [{ id: `${namespace}/${t.name}`, version: '1.0.0', descriptor: toDescriptor(t), score: 1, rank: 1 }];

const tracks = tool('LookupMusic', 'Retrieve a list of songs that match the listener’s preferences by artist, album, genre and release year.', {
  artist: { type: 'string', description: 'The performer.' },
  genre: { type: 'string', enum: ['Reggae', 'Electropop', 'Pop', 'Metal'], description: 'The music genre.' },
  year: { type: 'string', enum: ['2017', '2018', '2019', '2020'], description: 'The year of release.' },
});
const kitchen = tool(
  'ChaFod',
  'Changes the selection of food on the customer’s request; the food name must be uppercase.',
  { TheFod: { type: 'string', enum: ['PIZZA', 'BURGER', 'SALAD', 'SOUP'], description: 'The food to serve, in uppercase.' } },
  ['TheFod'],
);
const boiling = tool(
  'calculate_boiling_point',
  'Calculate the boiling point of a given substance at a specific pressure, in kilopascals or atmospheres.',
  { substance: { type: 'string', description: 'The substance.' }, pressure: { type: 'number', description: 'The pressure.' }, unit: { type: 'string', enum: ['kPa', 'atm'] } },
  ['substance', 'pressure'],
);
const shell = tool(
  'execute',
  'Executes a specified command in the Windows operating system using the os.system() function.',
  { command: { type: 'string', description: 'The command line instruction to pass to os.system().' } },
  ['command'],
);

describe('deterministic planner with the local model: a tool the request never names', () => {
  let embedder: OnnxEmbedder;
  beforeAll(async () => {
    embedder = await OnnxEmbedder.load(defaultModelDir());
  });
  afterAll(() => embedder.close());
  const plan = (text: string, candidates: PlanningCandidate[]) =>
    createPlanner(plannerOptionsFromEnv(plannerEnvSchema.parse({})), { embedder }).plan({ text, images: [], referenceTime: '2026-03-01T10:00:00Z' }, candidates, principal);

  it('runs it when the words give every value it requires', async () => {
    const songs = await plan('Any Metal tracks that came out in 2018?', only('music', tracks));
    expect(songs.decision).toBe('USE_TOOLS');
    expect(songs.steps[0].arguments).toEqual({ genre: 'Metal', year: '2018' });
    const food = await plan('Please switch my order from pizza to a SOUP.', only('kitchen', kitchen));
    expect(food.decision).toBe('USE_TOOLS');
    expect(food.steps[0].arguments).toEqual({ TheFod: 'SOUP' });
  });

  it("runs it, however loosely the wording fits, when the request says the value beside its field's own name", async () => {
    const off = await plan('disconnect wifi, using the command netsh wlan disconnect', only('cmd_controller', shell));
    expect(off.decision).toBe('USE_TOOLS');
    expect(off.steps[0].arguments).toEqual({ command: 'netsh wlan disconnect' });
    // The same wish without the value said at its name is no job for it.
    expect((await plan('disconnect wifi, please', only('cmd_controller', shell))).decision).toBe('NO_MATCH');
  });

  it('does not when they give none of them, or when the request asks for what the tool never speaks of', async () => {
    expect((await plan('I am not happy with what I ordered.', only('kitchen', kitchen))).decision).not.toBe('USE_TOOLS');
    expect((await plan('What is the melting point of iron at a pressure of 2 atm?', only('chem', boiling))).decision).toBe('NO_MATCH');
    // The tool it asks for, by name: the same words run it.
    expect((await plan('What is the boiling point of iron at a pressure of 2 atm?', only('chem', boiling))).decision).toBe('USE_TOOLS');
  });
});
