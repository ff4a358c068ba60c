import { EmbeddedToolIndex, LlmReranker, type ToolDocument, ToolRetriever } from '@toolgate/retrieval';
import { chatCompletion, errorReply, type OpenAIWireServer, startOpenAIWireServer } from '../support/openai-wire-server';

/** The LLM reranker through the real `openai` client against a local server speaking the wire format. */

const CHAT = '/v1/chat/completions';

const doc = (id: string, description: string): ToolDocument => ({
  id,
  version: '1',
  name: id.split('/')[1],
  title: id.split('/')[1],
  description,
  category: [],
  tags: [],
  parameters: [],
  exampleQueries: [],
  usageQueries: [],
  risk: 'read',
});
const docs = [
  doc('weather/forecast', 'weather forecast: rain, sun and wind for a city'),
  doc('weather/history', 'past weather records for a city'),
  doc('travel/umbrella-shop', 'find a shop that sells an umbrella for rain'),
];
const everything = { scope: [{ idGlob: '**', maxRisk: 'destructive' as const }] };

describe('LlmReranker against an OpenAI-compatible server', () => {
  let server: OpenAIWireServer;
  beforeEach(async () => {
    server = await startOpenAIWireServer();
  });
  afterEach(async () => {
    await server.close();
  });

  async function retrieverWith(reranker: LlmReranker) {
    const retriever = new ToolRetriever(new EmbeddedToolIndex(), null, undefined, reranker);
    await retriever.indexTools(docs);
    return retriever;
  }

  it('reorders the fused candidates as the model ranks them and explains every stage', async () => {
    const retriever = await retrieverWith(new LlmReranker({ baseURL: server.baseURL, model: 'rank-model', maxRetries: 0 }));
    const fused = (await new ToolRetriever(retriever.index, null).search('will it rain in Paris, weather', 5, everything)).hits.map((h) => h.id);
    const umbrella = fused.indexOf('travel/umbrella-shop') + 1;
    const forecast = fused.indexOf('weather/forecast') + 1;
    server.script(CHAT, chatCompletion({ content: `\`\`\`json\n{"ranking": [${umbrella}, ${forecast}, 99]}\n\`\`\`` }));

    const { hits, noMatch } = await retriever.search('will it rain in Paris, weather', 5, everything);

    expect(noMatch).toBe(false);
    expect(hits.map((h) => h.id)).toEqual(['travel/umbrella-shop', 'weather/forecast', 'weather/history']);
    expect(hits[0]).toMatchObject({ rank: 1, lexical: { rank: umbrella }, rerank: { reranker: 'llm', rank: 1, score: 1 } });
    expect(hits[1].rerank).toEqual({ reranker: 'llm', rank: 2, score: 0.5 });
    // A candidate the model left out keeps its place after the chosen ones, scored 0.
    expect(hits[2].rerank).toEqual({ reranker: 'llm', rank: 3, score: 0 });
    expect(hits[2].fused).toBeGreaterThan(0);

    const request = server.requests[0].body as { model: string; temperature: number; messages: { role: string; content: string }[] };
    expect(request.model).toBe('rank-model');
    expect(request.temperature).toBe(0);
    expect(request.messages[1].content).toContain('Request: will it rain in Paris, weather');
    expect(request.messages[1].content).toContain(`${umbrella}. umbrella-shop: find a shop that sells an umbrella for rain`);
    expect(server.pending()).toEqual({ [CHAT]: 0 });
  });

  it('keeps the fused order, and says why, when the reply is not the JSON asked for', async () => {
    const retriever = await retrieverWith(new LlmReranker({ baseURL: server.baseURL, maxRetries: 0 }));
    const fused = (await new ToolRetriever(retriever.index, null).search('rain weather', 5, everything)).hits;
    server.script(CHAT, chatCompletion({ content: 'The best tool is probably the forecast one.' }), chatCompletion({ content: '{"order": ["weather/forecast"]}' }));

    const prose = await retriever.search('rain weather', 5, everything);
    expect(prose.hits.map((h) => h.id)).toEqual(fused.map((h) => h.id));
    expect(prose.hits[0].rerank).toEqual({ reranker: 'llm', fallback: expect.stringContaining('unusable reply: not JSON') });

    const wrongShape = await retriever.search('rain weather', 5, everything);
    expect(wrongShape.hits.map((h) => h.id)).toEqual(fused.map((h) => h.id));
    expect(wrongShape.hits.every((h) => h.rerank?.fallback === 'unusable reply: expected {"ranking": [numbers]}')).toBe(true);
  });

  it('keeps the fused order when the model does not answer in time, or fails', async () => {
    const retriever = await retrieverWith(new LlmReranker({ baseURL: server.baseURL, timeoutMs: 300, maxRetries: 0 }));
    server.script(CHAT, { ...chatCompletion({ content: '{"ranking": [2, 1]}' }), delayMs: 5_000 }, errorReply(500, 'model crashed'));

    const slow = await retriever.search('rain weather', 5, everything);
    expect(slow.hits.length).toBeGreaterThan(0);
    expect(slow.hits[0].rerank).toEqual({ reranker: 'llm', fallback: 'no reply within 300 ms' });
    expect(slow.hits[0].lexical?.rank).toBe(1);

    const failed = await retriever.search('rain weather', 5, everything);
    expect(failed.hits[0].rerank?.fallback).toMatch(/^the model endpoint failed \(HTTP 500\): .*model crashed/);
  });
});
