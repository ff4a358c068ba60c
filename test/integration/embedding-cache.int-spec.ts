import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { CatalogService, EmbeddingCacheService, RunAuditService, UsageExampleService } from '@toolgate/registry';
import { CachedEmbedder, defaultModelDir, EmbeddedToolIndex, Embedder, type EmbeddingKind, OnnxEmbedder, ToolRetriever } from '@toolgate/retrieval';
import { DataSource } from 'typeorm';
import { SyncToolIndexUseCase } from '../../apps/gateway/src/use-cases/sync-tool-index.use-case';
import type { DatabaseKind } from '../support/databases';
import { pluginPackage, toolSource, writePlugin } from '../support/plugin-fixtures';
import { type RegistryHarness, startRegistry } from '../support/registry.harness';

/** The real local model, fetched by `npm test`; missing is a failure, never a skip. */
let onnx: OnnxEmbedder;

/** The real model under a model id of our choosing, recording every text it embeds and the vector it made. */
class RecordingEmbedder extends Embedder {
  readonly embedded: string[] = [];
  readonly made = new Map<string, Float32Array>();

  constructor(readonly model = onnx.model) {
    super();
  }

  get dimensions(): number {
    return onnx.dimensions;
  }

  async embed(texts: string[], kind: EmbeddingKind): Promise<Float32Array[]> {
    const vectors = await onnx.embed(texts, kind);
    for (const [i, text] of texts.entries()) {
      this.embedded.push(text);
      this.made.set(text, vectors[i]);
    }
    return vectors;
  }
}

const DESCRIPTIONS = {
  convert: 'Converts a distance between kilometers and miles.',
  forecast: 'Tells the coming weather for a city: rain, sun, wind and temperature.',
  wordcount: 'Counts the words and sentences of a text.',
};

/** `@fixtures/desk`: three tools with these descriptions (each also has the example query "say hello"). */
const deskPlugin = (version: string, descriptions: Record<string, string>) => ({
  folder: `desk-${version}`,
  packageJson: pluginPackage('@fixtures/desk', version),
  entry: `exports.tools = [${Object.entries(descriptions)
    .map(([name, description]) => toolSource(name, description))
    .join(', ')}];`,
});

const ALL = { scope: [{ idGlob: '**', maxRisk: 'destructive' as const }] };
const bytes = (vector: Float32Array) => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);

beforeAll(async () => {
  onnx = await OnnxEmbedder.load(defaultModelDir());
});

afterAll(async () => {
  await onnx?.close();
});

describe.each<DatabaseKind>(['sqlite', 'postgres'])('persistent embedding cache on %s', (kind) => {
  let registry: RegistryHarness;
  let app: INestApplicationContext;
  let work: string;
  let pluginDir: string;
  let store: EmbeddingCacheService;
  /** The first process's model: what it embedded and made. */
  let first: RecordingEmbedder;

  /** A process start: a new index and in-memory cache over the same database, synced the way the gateway does. */
  const start = async (model = new RecordingEmbedder()) => {
    const retriever = new ToolRetriever(new EmbeddedToolIndex(), new CachedEmbedder(model, 32, undefined, store));
    await new SyncToolIndexUseCase(app.get(CatalogService), app.get(UsageExampleService), retriever, 'on-demand').execute();
    return { model, retriever };
  };
  /** Stored vectors per model. */
  const rows = async () => {
    const counts = await app.get(DataSource).query('SELECT model, COUNT(*) AS n FROM embedding_cache GROUP BY model');
    return Object.fromEntries((counts as { model: string; n: string | number }[]).map((r) => [r.model, Number(r.n)]));
  };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'toolgate-embedding-cache-'));
    pluginDir = join(work, 'plugins');
    writePlugin(pluginDir, deskPlugin('1.0.0', DESCRIPTIONS));
    registry = await startRegistry(kind, { pluginDirs: [pluginDir], isGlobal: true });
    app = registry.app;
    store = app.get(EmbeddingCacheService);
  });

  afterAll(async () => {
    await registry?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('embeds the catalog once: after a restart no document is embedded and search runs on the stored vectors', async () => {
    ({ model: first } = await start());
    // Three descriptions and the example query they share.
    expect(first.embedded).toHaveLength(4);
    expect(await rows()).toEqual({ [onnx.model]: 4 });

    const again = await start();
    expect(again.model.embedded).toEqual([]);
    // No word in common with any tool: only the (stored) vectors can find it.
    const { hits } = await again.retriever.search('will it be stormy tomorrow', 3, ALL);
    expect(hits[0]).toMatchObject({ id: 'desk/forecast', semantic: { rank: 1 } });
    expect(hits[0].lexical).toBeUndefined();
  });

  it('reads back exactly the bits the model made', async () => {
    const model = new RecordingEmbedder();
    const texts = [...first.made.keys()];
    const vectors = await new CachedEmbedder(model, 32, undefined, store).embed(texts, 'document');
    expect(model.embedded).toEqual([]);
    for (const [i, text] of texts.entries()) expect({ text, equal: bytes(vectors[i]).equals(bytes(first.made.get(text) as Float32Array)) }).toEqual({ text, equal: true });
  });

  it('embeds exactly the one text whose description changed', async () => {
    writePlugin(pluginDir, deskPlugin('1.1.0', { ...DESCRIPTIONS, forecast: 'Forecasts storms, snow and heat waves for a town.' }));
    await app.get(CatalogService).loadPlugins();
    const { model } = await start();
    expect(model.embedded).toHaveLength(1);
    expect(model.embedded[0]).toContain('Forecasts storms, snow and heat waves for a town.');
    expect(await rows()).toEqual({ [onnx.model]: 5 });
  });

  it("does not reuse another model's vectors, and removes them", async () => {
    const next = await start(new RecordingEmbedder(`${onnx.model}-next`));
    expect(next.model.embedded).toHaveLength(4);
    expect(await rows()).toEqual({ [`${onnx.model}-next`]: 4 });
    // And back: the first model's vectors are gone, so it embeds everything again.
    const back = await start();
    expect(back.model.embedded).toHaveLength(4);
    expect(await rows()).toEqual({ [onnx.model]: 4 });
  });

  it('takes many saves that start in the same tick (queries answered as one batch), with the run audit writing beside them', async () => {
    const model = 'concurrent-test';
    const saves = Array.from({ length: 40 }, (_, i) => store.save(model, [{ key: `c${i}`, vector: Float32Array.from([i, 1, 2]) }]));
    const audit = app.get(RunAuditService);
    const run = {
      id: `concurrent-run-${kind}`,
      status: 'RUNNING' as const,
      traceId: 't',
      planId: 'p',
      owner: { tenant: 'acme', subject: 'alice' },
      steps: [],
      replans: 0,
      startedAt: new Date().toISOString(),
      finishedAt: null,
    };
    const appended = audit.append({ type: 'RUN_STARTED', at: run.startedAt, run });
    await expect(Promise.all(saves)).resolves.toHaveLength(40);
    await expect(appended).resolves.toBe(1);
    expect(
      (
        await store.load(
          model,
          Array.from({ length: 40 }, (_, i) => `c${i}`),
        )
      ).size,
    ).toBe(40);
    await store.retainOnly(onnx.model);
  });

  it('loads and saves more keys than one IN list holds, keeping the first vector of a key saved twice', async () => {
    const model = 'chunking-test';
    const random = () => Float32Array.from({ length: 8 }, () => (Math.random() - 0.5) * 10 ** (Math.random() * 60 - 30));
    const entries = Array.from({ length: 1_201 }, (_, i) => ({ key: `k${i}`, vector: random() }));
    await store.save(model, entries);
    // A second process saving the same keys (a race): no error, the stored vectors stay.
    await store.save(
      model,
      entries.map(({ key }) => ({ key, vector: random() })),
    );
    const loaded = await store.load(model, [...entries.map((e) => e.key), 'absent']);
    expect(loaded.size).toBe(entries.length);
    expect(entries.filter(({ key, vector }) => !bytes(loaded.get(key) as Float32Array).equals(bytes(vector))).map((e) => e.key)).toEqual([]);
    expect((await store.load(`${model}-other`, ['k0'])).size).toBe(0);
    expect(await store.retainOnly(onnx.model)).toBe(entries.length);
  });
});
