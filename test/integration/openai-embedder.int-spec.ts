import { CachedEmbedder, createEmbedder, dot, EmbeddedToolIndex, type Embedder, OpenAIEmbedder, retrievalEnvSchema, retrievalOptionsFromEnv, ToolRetriever } from '@toolgate/retrieval';
import { evalToolDocument } from '@toolgate/retrieval/evaluation';
import { ErrorCode } from '@toolgate/sdk';
import { embeddingsFrom, errorReply, type OpenAIWireServer, startOpenAIWireServer } from '../support/openai-wire-server';

/** The OpenAI-compatible embedder through the real `openai` client against a local server speaking the wire format. */

const EMBEDDINGS = '/v1/embeddings';

/** A deterministic, unnormalised bag-of-words vector, so the server's replies carry meaning the funnel can use. */
const bagOfWords =
  (dimensions = 32) =>
  (text: string): number[] => {
    const vector = new Array<number>(dimensions).fill(0);
    for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
      let hash = 7;
      for (const char of word) hash = (hash * 31 + char.charCodeAt(0)) % 1_000_003;
      vector[hash % dimensions] += 3;
    }
    return vector;
  };

interface EmbeddingsRequest {
  model: string;
  input: string[];
  dimensions?: number;
  encoding_format?: string;
}

describe('OpenAIEmbedder', () => {
  let server: OpenAIWireServer;
  const bodies = () => server.requests.filter((r) => r.path === EMBEDDINGS).map((r) => r.body as EmbeddingsRequest);
  const configured = (env: Record<string, string> = {}) =>
    createEmbedder(retrievalOptionsFromEnv(retrievalEnvSchema.parse({ TOOLGATE_EMBEDDER: 'openai', OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'test-key', ...env }))) as Promise<Embedder>;

  beforeEach(async () => {
    server = await startOpenAIWireServer();
  });
  afterEach(() => server.close());

  it('is built from the environment behind the cache, batches requests and returns unit vectors', async () => {
    server.fallback(EMBEDDINGS, embeddingsFrom(bagOfWords()));
    const embedder = await configured({ TOOLGATE_EMBEDDING_MODEL: 'my-embedding', TOOLGATE_EMBEDDING_BATCH_SIZE: '2' });
    expect(embedder).toBeInstanceOf(CachedEmbedder);
    const texts = ['convert miles to km', 'weather in Oslo', 'add two numbers', 'time in Tokyo', 'parse a CSV file'];
    const vectors = await embedder.embed(texts, 'document');

    expect(bodies().map((b) => b.input)).toEqual([texts.slice(0, 2), texts.slice(2, 4), texts.slice(4)]);
    expect(bodies().every((b) => b.model === 'my-embedding' && b.encoding_format === 'float' && b.dimensions === undefined)).toBe(true);
    expect(server.requests[0].headers.authorization).toBe('Bearer test-key');
    for (const vector of vectors) expect(dot(vector, vector)).toBeCloseTo(1, 5);
    expect(dot(vectors[0], vectors[0])).toBeGreaterThan(dot(vectors[0], vectors[1]));
    expect(embedder.dimensions).toBe(32);
  });

  it('serves repeated texts from the cache: a second call sends no request, a mixed one only the new texts', async () => {
    server.fallback(EMBEDDINGS, embeddingsFrom(bagOfWords()));
    const embedder = await configured();
    const first = await embedder.embed(['convert miles to km', 'weather in Oslo'], 'query');
    expect(server.requests).toHaveLength(1);
    const again = await embedder.embed(['weather in Oslo', 'convert miles to km'], 'query');
    expect(server.requests).toHaveLength(1);
    expect(again).toEqual([first[1], first[0]]);
    await embedder.embed(['weather in Oslo', 'time in Tokyo'], 'query');
    expect(bodies().map((b) => b.input)).toEqual([['convert miles to km', 'weather in Oslo'], ['time in Tokyo']]);
  });

  it('asks for the configured dimensions and names model, size and endpoint in its model id', async () => {
    server.fallback(EMBEDDINGS, embeddingsFrom(bagOfWords(256)));
    const embedder = await configured({ TOOLGATE_EMBEDDING_DIMENSIONS: '256' });
    expect(embedder.dimensions).toBe(256);
    await embedder.embed(['hello'], 'query');
    expect(bodies()[0]).toMatchObject({ model: 'text-embedding-3-small', dimensions: 256 });
    const host = new URL(server.baseURL).host;
    expect(embedder.model).toBe(`openai:text-embedding-3-small:256@${host}`);
    expect(new OpenAIEmbedder({ model: 'text-embedding-3-large' }).model).toBe('openai:text-embedding-3-large');
    expect(new OpenAIEmbedder({ model: 'text-embedding-3-large' }).dimensions).toBe(3072);
  });

  it('waits out a 429 with Retry-After and then succeeds', async () => {
    server.script(EMBEDDINGS, errorReply(429, 'rate limited', 1), embeddingsFrom(bagOfWords()));
    const embedder = await configured();
    const [vector] = await embedder.embed(['convert miles to km'], 'query');
    expect(dot(vector, vector)).toBeCloseTo(1, 5);
    expect(server.requests).toHaveLength(2);
    expect(server.pending()[EMBEDDINGS]).toBe(0);
  });

  it('refuses a reply whose size differs from earlier replies with MODEL_UNAVAILABLE', async () => {
    server.script(EMBEDDINGS, embeddingsFrom(bagOfWords(32)), embeddingsFrom(bagOfWords(48)));
    const embedder = await configured();
    await embedder.embed(['first'], 'query');
    await expect(embedder.embed(['second'], 'query')).rejects.toMatchObject({
      code: ErrorCode.MODEL_UNAVAILABLE,
      message: expect.stringContaining('48-dimensional vector where 32 dimensions were expected'),
    });
  });

  it('turns endpoint failures into MODEL_UNAVAILABLE with the cause attached', async () => {
    const embedder = new OpenAIEmbedder({ baseURL: server.baseURL, model: 'm', maxRetries: 1 });
    server.script(EMBEDDINGS, errorReply(500, 'down', 0), errorReply(500, 'still down', 0));
    const failure = embedder.embed(['hello']);
    await expect(failure).rejects.toMatchObject({ code: ErrorCode.MODEL_UNAVAILABLE, message: expect.stringContaining('HTTP 500') });
    await expect(failure).rejects.toHaveProperty('cause.status', 500);

    server.script(EMBEDDINGS, { raw: '{"data": [oops' });
    await expect(embedder.embed(['hello'])).rejects.toMatchObject({ code: ErrorCode.MODEL_UNAVAILABLE });

    server.script(EMBEDDINGS, { body: { object: 'list', data: [], model: 'm' } });
    await expect(embedder.embed(['hello'])).rejects.toMatchObject({ code: ErrorCode.MODEL_UNAVAILABLE, message: expect.stringContaining('0 vectors for 1 texts') });
  });

  it('needs a key or a base URL in the environment', () => {
    const result = retrievalEnvSchema.safeParse({ TOOLGATE_EMBEDDER: 'openai' });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.'))).toEqual(['OPENAI_API_KEY']);
  });

  it('serves the semantic side of the funnel, and a model change asks for a reindex', async () => {
    server.fallback(EMBEDDINGS, embeddingsFrom(bagOfWords(64)));
    const index = new EmbeddedToolIndex();
    const retriever = new ToolRetriever(index, await configured());
    await retriever.indexTools([
      evalToolDocument({ id: 'units/convert', name: 'convert', description: 'Convert a distance between miles and kilometers' }),
      evalToolDocument({ id: 'weather/current', name: 'current', description: 'Current weather and temperature of a city' }),
    ]);
    const { hits } = await retriever.search('how many kilometers are 5 miles', 2, { scope: [{ idGlob: '**', maxRisk: 'destructive' }] });
    expect(hits[0]).toMatchObject({ id: 'units/convert', semantic: { rank: 1 } });
    expect(await retriever.needsReindex()).toBe(false);
    const other = new ToolRetriever(index, await configured({ TOOLGATE_EMBEDDING_MODEL: 'text-embedding-3-large' }));
    expect(await other.needsReindex()).toBe(true);
  });
});
