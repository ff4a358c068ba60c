/**
 * Child process of the retrieval benchmark: memory of an embedded index of `--size` tools, in a fresh
 * process so RSS is not blurred by earlier sizes. Prints one JSON object. Run with --expose-gc.
 *   node --expose-gc bench/dist/retrieval/memory-probe.js --datasets D --queries N --seed S --size N --vectors FILE --model M
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { EmbeddedToolIndex, type IndexedTool } from '@toolgate/retrieval';
import { catalog, loadDatasets } from './catalog';
import { gc, mb } from './stats';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      datasets: { type: 'string' },
      queries: { type: 'string' },
      seed: { type: 'string' },
      size: { type: 'string' },
      vectors: { type: 'string' },
      dims: { type: 'string' },
      model: { type: 'string' },
    },
  });
  if (!(globalThis as { gc?: unknown }).gc) throw new Error('run with --expose-gc');
  const size = Number(values.size);
  const seed = Number(values.seed);
  const dims = Number(values.dims);
  const { base } = await loadDatasets(String(values.datasets), Number(values.queries), seed);
  const bytes = readFileSync(String(values.vectors));
  const all = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const baseVectors = Array.from({ length: all.length / dims }, (_, i) => all.slice(i * dims, (i + 1) * dims));
  // The index keeps its documents: give it fresh copies so the base pool loaded above is not counted as free.
  const copy = (tool: IndexedTool): IndexedTool => ({ doc: JSON.parse(JSON.stringify(tool.doc)), vectors: tool.vectors });
  gc();
  const before = process.memoryUsage();
  const index = new EmbeddedToolIndex();
  let chunk: IndexedTool[] = [];
  for (const tool of catalog(size, base.slice(0, baseVectors.length), baseVectors, seed)) {
    chunk.push(copy(tool));
    if (chunk.length === 5_000) {
      await index.upsert(chunk, String(values.model));
      chunk = [];
    }
  }
  await index.upsert(chunk, String(values.model));
  chunk = [];
  gc();
  const after = process.memoryUsage();
  const indexed = (await index.ids()).length;
  const per10k = (bytes: number) => mb((bytes * 10_000) / indexed);
  const delta = {
    rss: after.rss - before.rss,
    heapUsed: after.heapUsed - before.heapUsed,
    external: after.external - before.external,
    arrayBuffers: after.arrayBuffers - before.arrayBuffers,
  };
  process.stdout.write(
    `${JSON.stringify({
      size: indexed,
      deltaMb: { rss: mb(delta.rss), heapUsed: mb(delta.heapUsed), arrayBuffers: mb(delta.arrayBuffers), external: mb(delta.external) },
      // `external` holds the array buffers and, beyond them, the WebAssembly memory (the int8 vector copies).
      per10kMb: { rss: per10k(delta.rss), heapUsed: per10k(delta.heapUsed), arrayBuffers: per10k(delta.arrayBuffers), external: per10k(delta.external) },
      absoluteMb: { rss: mb(after.rss), heapUsed: mb(after.heapUsed) },
    })}\n`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
