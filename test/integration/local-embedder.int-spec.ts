import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbedder, defaultModelDir, dot, OnnxEmbedder, OnnxWorkerPool, ThreadedOnnxEmbedder, WordPieceTokenizer } from '@toolgate/retrieval';
import { ErrorCode } from '@toolgate/sdk';

/** The real model, fetched by `npm test` (scripts/fetch-model.sh). Missing is a failure, never a skip. */
const modelDir = defaultModelDir();

describe('local sentence-embedding model', () => {
  let embedder: OnnxEmbedder;

  beforeAll(async () => {
    embedder = await OnnxEmbedder.load(modelDir);
  });

  it('tokenizes exactly like the reference tokenizers library', () => {
    const tokenizer = WordPieceTokenizer.fromFile(join(modelDir, 'tokenizer.json'));
    const reference = JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'wordpiece-reference.json'), 'utf8')) as { cases: { text: string; ids: number[] }[] };
    for (const { text, ids } of reference.cases) expect({ text, ids: tokenizer.encode(text, 256) }).toEqual({ text, ids });
  });

  it('puts paraphrases close together and unrelated texts apart', async () => {
    const [a, b, c] = await embedder.embed(['convert kilometers to miles', 'how far is 10 km in miles', 'what is the weather in Paris']);
    expect(a).toHaveLength(384);
    expect(dot(a, a)).toBeCloseTo(1, 5);
    expect(dot(a, b)).toBeGreaterThan(0.6);
    expect(dot(a, c)).toBeLessThan(0.25);
    expect(embedder.model).toMatch(/^all-MiniLM-L6-v2@[0-9a-f]{12}$/);
  });

  it('gives a text the same vector alone or among longer texts', async () => {
    const [alone] = await embedder.embed(['short']);
    const batch = await embedder.embed(['a much longer sentence that would pad the short one if they shared a batch', 'short']);
    expect(Array.from(batch[1])).toEqual(Array.from(alone));
  });

  it('reads the parts of a request from one pass over it, each near its own meaning', async () => {
    const text = 'Convert 10 kilometers to miles, and then check the weather forecast in Paris';
    const parts = ['Convert 10 kilometers to miles', 'check the weather forecast in Paris'];
    const [whole, distance, weather] = await embedder.embedWithParts(text, parts, 'query');
    const [alone, distanceAlone, weatherAlone] = await embedder.embed([text, ...parts]);
    // The whole text's vector is the ordinary one; each part stays close to its standalone meaning.
    expect(dot(whole, alone)).toBeCloseTo(1, 4);
    expect(dot(distance, distanceAlone)).toBeGreaterThan(0.7);
    expect(dot(weather, weatherAlone)).toBeGreaterThan(0.7);
    const [unitsTool, weatherTool] = await embedder.embed(['convert a length between units of measurement', 'weather forecast for a city'], 'document');
    expect(dot(distance, unitsTool)).toBeGreaterThan(dot(distance, weatherTool));
    expect(dot(weather, weatherTool)).toBeGreaterThan(dot(weather, unitsTool));
  });

  it('embeds a part on its own when its words are not one run of the text', async () => {
    const text = 'First, list the files. Please help me.';
    const joined = 'list the files Please help me';
    const [, part] = await embedder.embedWithParts(text, [joined], 'query');
    const [own] = await embedder.embed([joined]);
    expect(dot(part, own)).toBeCloseTo(1, 4);
  });

  it('refuses a missing or corrupt model with MODEL_UNAVAILABLE naming the setup command', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'model-'));
    await expect(OnnxEmbedder.load(empty)).rejects.toMatchObject({ code: ErrorCode.MODEL_UNAVAILABLE, message: expect.stringContaining('npm run fetch-model') });
    const corrupt = mkdtempSync(join(tmpdir(), 'model-'));
    cpSync(modelDir, corrupt, { recursive: true });
    const bytes = readFileSync(join(corrupt, 'model.onnx'));
    bytes[bytes.length - 10] ^= 0xff;
    writeFileSync(join(corrupt, 'model.onnx'), bytes);
    await expect(OnnxEmbedder.load(corrupt)).rejects.toMatchObject({ code: ErrorCode.MODEL_UNAVAILABLE, message: expect.stringMatching(/corrupt.*npm run fetch-model/) });
    rmSync(empty, { recursive: true });
    rmSync(corrupt, { recursive: true });
  });

  describe('in a worker thread', () => {
    let threaded: ThreadedOnnxEmbedder;

    beforeAll(async () => {
      threaded = await ThreadedOnnxEmbedder.start(modelDir, 1);
    });

    afterAll(() => threaded.close());

    it('gives the same vectors as in-process, for texts and for parts read in context', async () => {
      const texts = ['convert kilometers to miles', 'what is the weather in Paris', ''];
      const [inProcess, inWorker] = await Promise.all([embedder.embed(texts), threaded.embed(texts, 'document')]);
      expect(threaded.model).toBe(embedder.model);
      expect(inWorker).toHaveLength(3);
      for (const [i, vector] of inWorker.entries()) expect(Array.from(vector)).toEqual(Array.from(inProcess[i]));
      const text = 'Convert 10 kilometers to miles, and then check the weather in Paris';
      const parts = ['Convert 10 kilometers to miles', 'check the weather in Paris'];
      expect((await threaded.embedWithParts(text, parts, 'query')).map((v) => Array.from(v))).toEqual((await embedder.embedWithParts(text, parts, 'query')).map((v) => Array.from(v)));
    });

    it('keeps the event loop free while the model works', async () => {
      const long = Array.from({ length: 64 }, (_, i) => `tool number ${i} converts lengths, weights and temperatures between metric and imperial units for travellers`);
      let ticks = 0;
      const timer = setInterval(() => ticks++, 1);
      await threaded.embed(long, 'document');
      clearInterval(timer);
      // In-process, onnxruntime holds the loop for each text: a timer only runs between texts.
      expect(ticks).toBeGreaterThan(8);
    });

    it('answers concurrent callers each with their own vectors', async () => {
      const texts = ['send an email', 'book a flight to Rome', 'chart the sales by month', 'translate this to German'];
      const one = await Promise.all(texts.map((t) => threaded.embed([t], 'query')));
      const alone = await embedder.embed(texts);
      for (const [i, [vector]] of one.entries()) expect(dot(vector, alone[i])).toBeCloseTo(1, 5);
    });

    it('gives a text the same vector whatever is embedded beside it or at the same time', async () => {
      // The model quantizes activations per input: a text batched with others would get another vector.
      const texts = Array.from({ length: 40 }, (_, i) => `what is the weather in city number ${i}`);
      const long = 'a tool description long enough to change the activations of any batch it joins, '.repeat(8);
      const [concurrent, together] = await Promise.all([Promise.all(texts.map((text) => threaded.embed([text], 'query'))), threaded.embed([long, ...texts], 'document')]);
      for (const [i, text] of texts.entries()) {
        const [alone] = await embedder.embed([text]);
        expect(Array.from(concurrent[i][0])).toEqual(Array.from(alone));
        expect(Array.from(together[i + 1])).toEqual(Array.from(alone));
      }
    });

    it('fails with MODEL_UNAVAILABLE naming the setup command when the model is missing, and refuses calls once closed', async () => {
      const empty = mkdtempSync(join(tmpdir(), 'model-'));
      await expect(ThreadedOnnxEmbedder.start(empty)).rejects.toMatchObject({ code: ErrorCode.MODEL_UNAVAILABLE, message: expect.stringContaining('npm run fetch-model') });
      rmSync(empty, { recursive: true });
      const closing = await ThreadedOnnxEmbedder.start(modelDir, 1);
      await closing.close();
      await expect(closing.embed(['x'], 'query')).rejects.toMatchObject({ code: ErrorCode.MODEL_UNAVAILABLE });
    });

    it('started on first use, loads nothing until asked, then answers as the started one; a broken model fails that first call', async () => {
      const deferred = ThreadedOnnxEmbedder.onFirstUse(modelDir, 1);
      const workerOf = (embedder: ThreadedOnnxEmbedder) => (embedder as unknown as { worker?: unknown }).worker;
      expect(workerOf(deferred)).toBeUndefined();
      expect([deferred.model, deferred.dimensions]).toEqual([threaded.model, threaded.dimensions]);
      // Concurrent first calls share one worker.
      const [[a], [b]] = await Promise.all([deferred.embed(['convert kilometers to miles'], 'query'), deferred.embed(['weather in Paris'], 'query')]);
      const [[c], [d]] = [await threaded.embed(['convert kilometers to miles'], 'query'), await threaded.embed(['weather in Paris'], 'query')];
      expect([dot(a, c), dot(b, d)].map((x) => Number(x.toFixed(5)))).toEqual([1, 1]);
      expect(workerOf(deferred)).toBeDefined();
      await deferred.close();

      const broken = mkdtempSync(join(tmpdir(), 'model-'));
      cpSync(join(modelDir, 'toolgate-model.json'), join(broken, 'toolgate-model.json'));
      const unloadable = ThreadedOnnxEmbedder.onFirstUse(broken, 1);
      await expect(unloadable.embed(['x'], 'query')).rejects.toMatchObject({ code: ErrorCode.MODEL_UNAVAILABLE, message: expect.stringContaining('npm run fetch-model') });
      await unloadable.close();
      expect(() => ThreadedOnnxEmbedder.onFirstUse(mkdtempSync(join(tmpdir(), 'model-')))).toThrow(expect.objectContaining({ code: ErrorCode.MODEL_UNAVAILABLE }));
      rmSync(broken, { recursive: true });
    });
  });

  describe('in a pool of workers', () => {
    const texts = Array.from({ length: 24 }, (_, i) => `convert ${i} kilometers to miles and check the weather in city number ${i}`);

    it('starts a second worker only while callers wait, gives the same vectors, and stops it when idle', async () => {
      const first = await ThreadedOnnxEmbedder.start(modelDir, 1);
      const extra = ThreadedOnnxEmbedder.onFirstUse(modelDir, 1);
      const pool = new OnnxWorkerPool([first, extra], 1_000);
      try {
        // One caller at a time never needs the second worker.
        for (const text of texts.slice(0, 3)) await pool.embed([text], 'query');
        expect(extra.started).toBe(false);
        const concurrent = await Promise.all(texts.map((text) => pool.embed([text], 'query')));
        expect(extra.started).toBe(true);
        // Once the second worker is up (its model loaded), concurrent calls are spread over both.
        await extra.warm();
        const spread = Promise.all(texts.map((text) => pool.embed([text], 'query')));
        await new Promise((resolve) => setImmediate(resolve));
        expect([first.inFlight > 0, extra.inFlight > 0]).toEqual([true, true]);
        const again = await spread;
        for (const [i, text] of texts.entries()) {
          const [alone] = await embedder.embed([text], 'query');
          expect(Array.from(concurrent[i][0])).toEqual(Array.from(alone));
          expect(Array.from(again[i][0])).toEqual(Array.from(alone));
        }
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        expect([first.started, extra.started]).toEqual([true, false]);
        // A stopped worker starts again under the next load.
        await Promise.all(texts.map((text) => pool.embed([text], 'query')));
        expect(extra.started).toBe(true);
      } finally {
        await pool.close();
      }
    });

    it('keeps serving with the first worker when another cannot start', async () => {
      const broken = mkdtempSync(join(tmpdir(), 'model-'));
      cpSync(modelDir, broken, { recursive: true });
      const extra = ThreadedOnnxEmbedder.onFirstUse(broken, 1);
      writeFileSync(join(broken, 'model.onnx'), 'not a model');
      const pool = new OnnxWorkerPool([await ThreadedOnnxEmbedder.start(modelDir, 1), extra], 300);
      try {
        const round = async () => expect(await Promise.all(texts.map((text) => pool.embed([text], 'query')))).toHaveLength(texts.length);
        await round();
        // Its start failed (the model file is broken): it is not tried again.
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        expect(extra.started).toBe(false);
        await round();
        expect(extra.started).toBe(false);
      } finally {
        await pool.close();
        rmSync(broken, { recursive: true });
      }
    });
  });

  it('averages an ensemble of two models (TOOLGATE_LOCAL_MODEL=all-MiniLM-L6-v2+bge-small-en-v1.5) into one vector space', async () => {
    const bgeDir = defaultModelDir({ ...process.env, TOOLGATE_LOCAL_MODEL: 'bge-small-en-v1.5' });
    const ensemble = await createEmbedder({ embedder: 'local', modelDir, ensembleDirs: [bgeDir] });
    const bge = await OnnxEmbedder.load(bgeDir);
    try {
      expect(ensemble?.model).toMatch(/^all-MiniLM-L6-v2@[0-9a-f]{12}\+bge-small-en-v1\.5@[0-9a-f]{12}$/);
      expect(ensemble?.dimensions).toBe(768);
      const [request] = (await ensemble?.embed(['how far is 10 km in miles'], 'query')) ?? [];
      const [units, weather] = (await ensemble?.embed(['convert a length between units of measurement', 'weather forecast for a city'], 'document')) ?? [];
      const mean = async (query: string, doc: string) => {
        const [[q1], [d1], [q2], [d2]] = [await embedder.embed([query], 'query'), await embedder.embed([doc], 'document'), await bge.embed([query], 'query'), await bge.embed([doc], 'document')];
        return (dot(q1, d1) + dot(q2, d2)) / 2;
      };
      expect(dot(request, units)).toBeCloseTo(await mean('how far is 10 km in miles', 'convert a length between units of measurement'), 5);
      expect(dot(request, units)).toBeGreaterThan(dot(request, weather));
    } finally {
      await ensemble?.close();
    }
  });

  describe('the Chinese option (bge-small-zh-v1.5: [CLS] pooling, a query instruction)', () => {
    const chineseDir = defaultModelDir({ ...process.env, TOOLGATE_LOCAL_MODEL: 'bge-small-zh-v1.5' });
    let chinese: OnnxEmbedder;

    beforeAll(async () => {
      chinese = await OnnxEmbedder.load(chineseDir);
    });

    it('puts a Chinese request near the tool that does it and away from the others', async () => {
      const [request] = await chinese.embed(['把10英里换算成公里'], 'query');
      const [units, weather, mail] = await chinese.embed(['长度、重量和温度的单位换算', '查询城市的天气预报', '发送电子邮件'], 'document');
      expect(request).toHaveLength(512);
      expect(dot(request, request)).toBeCloseTo(1, 5);
      expect(chinese.model).toMatch(/^bge-small-zh-v1\.5@[0-9a-f]{12}$/);
      expect(chinese.languages).toEqual(['zh']);
      expect(dot(request, units)).toBeGreaterThan(dot(request, weather) + 0.1);
      expect(dot(request, units)).toBeGreaterThan(dot(request, mail) + 0.1);
    });

    it('reads a query with its instruction and a passage without, and each clause of a request on its own', async () => {
      const [asQuery] = await chinese.embed(['查询天气'], 'query');
      const [asPassage] = await chinese.embed(['查询天气'], 'document');
      expect(dot(asQuery, asPassage)).toBeLessThan(0.999);
      const parts = ['把10英里换算成公里', '查询北京的天气'];
      const [whole, ...clauses] = await chinese.embedWithParts(`${parts[0]}，然后${parts[1]}`, parts, 'query');
      const alone = await chinese.embed([`${parts[0]}，然后${parts[1]}`, ...parts], 'query');
      expect([whole, ...clauses].map((v, i) => Number(dot(v, alone[i]).toFixed(5)))).toEqual([1, 1, 1]);
    });

    it('passes the kind of text through the worker thread', async () => {
      const threaded = await ThreadedOnnxEmbedder.start(chineseDir, 1);
      try {
        const [[query], [passage]] = [await threaded.embed(['查询天气'], 'query'), await threaded.embed(['查询天气'], 'document')];
        const [[ownQuery], [ownPassage]] = [await chinese.embed(['查询天气'], 'query'), await chinese.embed(['查询天气'], 'document')];
        expect([dot(query, ownQuery), dot(passage, ownPassage)].map((x) => Number(x.toFixed(5)))).toEqual([1, 1]);
      } finally {
        await threaded.close();
      }
    });

    it('refuses a manifest that names a pooling it does not know', async () => {
      const odd = mkdtempSync(join(tmpdir(), 'model-'));
      cpSync(chineseDir, odd, { recursive: true });
      const manifest = JSON.parse(readFileSync(join(odd, 'toolgate-model.json'), 'utf8')) as Record<string, unknown>;
      writeFileSync(join(odd, 'toolgate-model.json'), JSON.stringify({ ...manifest, pooling: 'max' }));
      await expect(OnnxEmbedder.load(odd)).rejects.toMatchObject({ code: ErrorCode.MODEL_UNAVAILABLE, message: expect.stringContaining('pooling "max"') });
      rmSync(odd, { recursive: true });
    });
  });
});
