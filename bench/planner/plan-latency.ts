/**
 * Latency of the deterministic planner (`select`, as `selectTools` and `eval calls` call it) on the BFCL
 * sets' own requests and functions, with the local embedder. `first`: the sample's tools are new
 * (profiled and embedded in the call, what a server does once per tool version). `known_tools`: the
 * same request on new candidate objects after an unrelated request on them has profiled the tools,
 * so the request's own text is still embedded (the embedder caches texts): what a server pays per
 * request once its catalog is known. The two are measured with separate embedders (each caches what
 * it embedded), so neither sees a text the other embedded. The ratio
 * known/first is the figure to compare across runs (these machines are noisy); milliseconds are
 * printed for reading, not for asserting. Prints one JSON object and keeps it under bench/planner/results/.
 *
 *   npm run bench:plan-latency -- [--sets simple_python,parallel] [--limit 100] [--no-write]
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createPlanner, type PlanningCandidate, plannerEnvSchema, plannerOptionsFromEnv } from '@toolgate/planner';
import { bfclToJsonSchema, latencySummary, readBfclSamples } from '@toolgate/planner/evaluation';
import { createRetriever } from '@toolgate/retrieval';
import { DEFAULT_LIMITS, type ToolDescriptor } from '@toolgate/sdk';

const REPO = join(__dirname, '..', '..', '..');
const BFCL = join(REPO, '..', 'shared', 'datasets', 'bfcl');
const RESULTS = join(REPO, 'bench', 'planner', 'results');
const SETS = ['simple_python', 'multiple', 'parallel', 'parallel_multiple'];
const PRINCIPAL = { tenant: 'bench', subject: 'bench', roles: [] };

function descriptor(name: string, description: string, parameters: Parameters<typeof bfclToJsonSchema>[0]): ToolDescriptor {
  return {
    name,
    title: name,
    description,
    category: [],
    tags: [],
    inputSchema: { ...bfclToJsonSchema(parameters), type: 'object' },
    outputSchema: { type: 'object' },
    examples: [],
    permissions: { scopes: [], risk: 'read' },
    limits: DEFAULT_LIMITS,
    execution: 'server',
    hasHealthCheck: false,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { limit: { type: 'string' }, sets: { type: 'string' }, 'no-write': { type: 'boolean' } } });
  const limit = values.limit ? Number(values.limit) : undefined;
  const firstSide = await createRetriever({ embedder: 'local' });
  const knownSide = await createRetriever({ embedder: 'local' });
  // The zero-configuration planner: an empty environment chooses the deterministic one.
  const options = plannerOptionsFromEnv(plannerEnvSchema.parse({}));
  const firstPlanner = createPlanner(options, { embedder: firstSide.embedder });
  const knownPlanner = createPlanner(options, { embedder: knownSide.embedder });
  const sets: Record<string, unknown> = {};
  for (const set of values.sets ? values.sets.split(',') : SETS) {
    const samples = (await readBfclSamples(join(BFCL, `BFCL_v4_${set}.json`))).slice(0, limit);
    const first: number[] = [];
    const known: number[] = [];
    const timed = async (planner: typeof firstPlanner, times: number[], text: string, candidates: PlanningCandidate[]) => {
      const started = performance.now();
      await planner.select({ text, images: [], referenceTime: '2024-01-01T00:00:00Z', timeZone: 'UTC' }, candidates, PRINCIPAL);
      times.push(performance.now() - started);
    };
    for (const sample of samples) {
      const candidatesOf = (): PlanningCandidate[] =>
        sample.functions.map((fn, i) => ({ id: fn.name, version: '0', descriptor: descriptor(fn.name, fn.description, fn.parameters), score: 1 / (i + 1), rank: i + 1 }));
      await timed(firstPlanner, first, sample.text, candidatesOf());
      const catalog = candidatesOf();
      await timed(knownPlanner, [], `Look up what ${sample.functions[0]?.name ?? 'this'} does for the record`, catalog);
      await timed(knownPlanner, known, sample.text, catalog);
    }
    const cold = latencySummary(first);
    const warm = latencySummary(known);
    sets[set] = { samples: samples.length, first_ms: cold, known_tools_ms: warm, known_over_first_p50: warm.p50 / cold.p50 };
  }
  await firstSide.index.close();
  await knownSide.index.close();
  const result = { bench: 'deterministic planner latency (select) on BFCL requests, local embedder', date: new Date().toISOString(), node: process.version, embedder: firstSide.model, sets };
  const json = JSON.stringify(result, null, 2);
  process.stdout.write(`${json}\n`);
  if (!values['no-write']) {
    // A second run on the same day is kept beside the first, not over it.
    let file = join(RESULTS, `${result.date.slice(0, 10)}-plan-latency.json`);
    for (let n = 2; existsSync(file); n++) file = join(RESULTS, `${result.date.slice(0, 10)}-plan-latency-${n}.json`);
    writeFileSync(file, `${json}\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
