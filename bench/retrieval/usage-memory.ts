/**
 * What usage examples cost the embedded index: one process per count, `gc()` before and after one
 * upsert of 200 tools holding that many examples between them (each a 384-d unit vector and its text),
 * as the server indexes imported or learned examples. Prints one JSON object and keeps it in results/.
 *   npm run bench:usage-memory -- --examples 10000,50000
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { EmbeddedToolIndex, type IndexedTool } from '@toolgate/retrieval';
import { gc, mb } from './stats';

const TOOLS = 200;
const DIMS = 384;

function unitVector(random: () => number): Float32Array {
  const vector = Float32Array.from({ length: DIMS }, () => random() - 0.5);
  const norm = Math.hypot(...vector);
  return vector.map((x) => x / norm);
}

/** A seeded generator (mulberry32), so every run indexes the same vectors. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

async function probe(examples: number): Promise<Record<string, unknown>> {
  const random = seeded(examples);
  const perTool = Math.ceil(examples / TOOLS);
  gc();
  const before = process.memoryUsage();
  const index = new EmbeddedToolIndex();
  let tools: IndexedTool[] = Array.from({ length: TOOLS }, (_, t) => ({
    doc: {
      id: `bench/t${t}`,
      version: '1.0.0',
      name: `t${t}`,
      title: `Tool ${t}`,
      description: `Does thing number ${t}`,
      category: [],
      tags: [],
      parameters: [],
      exampleQueries: [],
      usageQueries: Array.from({ length: perTool }, (_, i) => `can you check the status of order ${i} with tool ${t} for me`),
      risk: 'read',
    },
    vectors: Array.from({ length: perTool + 1 }, () => unitVector(random)),
  }));
  await index.upsert(tools, 'bench-384');
  tools = [];
  gc();
  const after = process.memoryUsage();
  const held = after.heapUsed - before.heapUsed + (after.external - before.external);
  return {
    examples: perTool * TOOLS,
    tools: (await index.ids()).length,
    deltaMb: { heapUsed: mb(after.heapUsed - before.heapUsed), external: mb(after.external - before.external), rss: mb(after.rss - before.rss) },
    // `external` holds the float vectors and the WebAssembly memory with their int8 copies.
    kbPerExample: Number((held / 1024 / (perTool * TOOLS)).toFixed(2)),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { examples: { type: 'string', default: '10000,50000' }, probe: { type: 'string' }, 'no-write': { type: 'boolean', default: false } } });
  if (values.probe) {
    process.stdout.write(`${JSON.stringify(await probe(Number(values.probe)))}\n`);
    return;
  }
  // A fresh process per count, so one count's garbage never blurs the next.
  const runs = values.examples.split(',').map((count) => JSON.parse(execFileSync(process.execPath, ['--expose-gc', __filename, '--probe', count], { encoding: 'utf8' })));
  const result = { date: new Date().toISOString(), node: process.version, dims: DIMS, tools: TOOLS, runs };
  const text = `${JSON.stringify(result, null, 2)}\n`;
  process.stdout.write(text);
  if (values['no-write']) return;
  const dir = join(__dirname, '..', '..', '..', 'bench', 'retrieval', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${result.date.slice(0, 10)}-usage-memory.json`), text);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
