/**
 * Prompt tokens of the LLM planner's requests with the top-K retrieved candidates versus the whole
 * catalog: the exact bodies `LlmPlanner` sends (selectionRequest / planRequest), counted with
 * o200k_base. Catalogs: the bundled plugins' tools, and UltraTool's tools (tool_desc.json: name and
 * description only, no parameters, so the whole-catalog figure there is a lower bound).
 * Token counts are deterministic: no timing, nothing to repeat. Prints one JSON object and keeps it
 * under bench/planner/results/.
 *
 *   npm run bench:planner -- [--ks 5,10] [--tasks 100] [--no-write]
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CandidateTools, type PlanningCandidate, planRequest, promptTokens, selectionRequest, type TaskInput } from '@toolgate/planner';
import { buildToolDocument, createRetriever, type ToolDocument, type ToolSearchFilter } from '@toolgate/retrieval';
import { type ToolDescriptor, type ToolManifest, toDescriptor } from '@toolgate/sdk';

const REPO = join(__dirname, '..', '..', '..');
const ULTRATOOL = join(REPO, '..', 'shared', 'datasets', 'ultratool');
const RESULTS = join(REPO, 'bench', 'planner', 'results');
const MODEL = 'gpt-4o-mini';
const EVERYTHING: ToolSearchFilter = { scope: [{ idGlob: '**', maxRisk: 'destructive' }] };

/** Tasks over the bundled tools: single- and multi-tool, as a caller would write them. */
const BUNDLED_TASKS = [
  'How many miles is 42 km?',
  'Convert 100 USD to EUR and tell me what time it is in Tokyo right now',
  'Parse this CSV, sum revenue by quarter and draw a bar chart: quarter,revenue\nQ1,10\nQ2,12\nQ1,5',
  'What date is next Monday at 3pm in Berlin, and how many days is that from today?',
  'Fetch https://example.com/report.txt, count its words and save the top terms to notes/terms.txt',
  'What is (17.5 * 3) / 4 rounded to two decimals?',
  'List the files in my sandbox and read summary.md',
  'Convert 30 degrees Celsius to Fahrenheit and 5 lbs to kg',
];

interface Catalog {
  name: string;
  tools: PlanningCandidate[];
  docs: ToolDocument[];
  tasks: string[];
}

function bundledCatalog(): Catalog {
  const tools: PlanningCandidate[] = [];
  for (const folder of readdirSync(join(REPO, 'plugins')).sort()) {
    const pkg = JSON.parse(readFileSync(join(REPO, 'plugins', folder, 'package.json'), 'utf8')) as { name: string; version: string };
    const { tools: manifests } = require(join(REPO, 'plugins', folder)) as { tools: ToolManifest[] };
    const namespace = pkg.name.replace(/^@[^/]+\//, '');
    for (const manifest of manifests) tools.push({ id: `${namespace}/${manifest.name}`, version: pkg.version, descriptor: toDescriptor(manifest), score: 0, rank: tools.length + 1 });
  }
  return { name: 'bundled', tools, docs: tools.map((tool) => buildToolDocument(tool.id, tool.version, tool.descriptor)), tasks: BUNDLED_TASKS };
}

function ultratoolCatalog(taskCount: number): Catalog {
  const { nodes } = JSON.parse(readFileSync(join(ULTRATOOL, 'tool_desc.json'), 'utf8')) as { nodes: { id: string; desc: string; domain: string[] }[] };
  const tools = nodes.map((node, i): PlanningCandidate => {
    const descriptor = {
      name: node.id,
      title: node.id,
      description: node.desc,
      category: node.domain,
      tags: [],
      // UltraTool gives no parameters: an empty object schema is the least a function tool carries.
      inputSchema: { type: 'object', properties: {} },
      outputSchema: { type: 'object', properties: {} },
      examples: [],
      permissions: { scopes: [], risk: 'read' },
      limits: { timeoutMs: 1000, maxConcurrency: 1, retries: 0, idempotent: true },
      execution: 'client',
      hasHealthCheck: false,
    } as ToolDescriptor;
    return { id: `ultratool/${node.id.replace(/[^a-z0-9_-]/gi, '_').toLowerCase()}`, version: '1.0.0', descriptor, score: 0, rank: i + 1 };
  });
  const testIds = new Set((JSON.parse(readFileSync(join(ULTRATOOL, 'split_ids.json'), 'utf8')) as { test_ids: { chain: string[] } }).test_ids.chain);
  const tasks = readFileSync(join(ULTRATOOL, 'data.json'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { id: string; user_request: string })
    .filter((sample) => testIds.has(sample.id))
    .slice(0, taskCount)
    .map((sample) => sample.user_request.trim());
  return { name: 'ultratool', tools, docs: tools.map((tool) => buildToolDocument(tool.id, tool.version, tool.descriptor)), tasks };
}

const mean = (values: number[]) => Math.round(values.reduce((a, b) => a + b, 0) / values.length);

async function measure(catalog: Catalog, ks: number[]) {
  const retriever = await createRetriever({ driver: 'embedded', embedder: 'none' });
  await retriever.indexTools(catalog.docs);
  const byId = new Map(catalog.tools.map((tool) => [tool.id, tool]));
  const sizes = [...ks.filter((k) => k < catalog.tools.length), catalog.tools.length];
  const perSize = new Map<number, { select: number[]; plan: number[] }>(sizes.map((size) => [size, { select: [], plan: [] }]));
  for (const text of catalog.tasks) {
    const task: TaskInput = { text, images: [] };
    const { hits } = await retriever.search(text, Math.max(...ks), EVERYTHING);
    for (const size of sizes) {
      const candidates = size === catalog.tools.length ? catalog.tools : hits.slice(0, size).flatMap((hit, i) => ({ ...(byId.get(hit.id) as PlanningCandidate), score: hit.fused, rank: i + 1 }));
      const tools = new CandidateTools(candidates);
      perSize.get(size)?.select.push(promptTokens(selectionRequest(task, tools, MODEL)));
      perSize.get(size)?.plan.push(promptTokens(planRequest(task, tools, MODEL)));
    }
  }
  const whole = perSize.get(catalog.tools.length) as { select: number[]; plan: number[] };
  return {
    tools: catalog.tools.length,
    tasks: catalog.tasks.length,
    mean_prompt_tokens: Object.fromEntries(
      sizes.map((size) => [size === catalog.tools.length ? `all_${size}` : `top_${size}`, { select: mean(perSize.get(size)?.select ?? []), plan: mean(perSize.get(size)?.plan ?? []) }]),
    ),
    whole_over_top_k: Object.fromEntries(
      sizes
        .filter((size) => size !== catalog.tools.length)
        .map((size) => [
          `top_${size}`,
          {
            select: Number((mean(whole.select) / mean(perSize.get(size)?.select ?? [])).toFixed(2)),
            plan: Number((mean(whole.plan) / mean(perSize.get(size)?.plan ?? [])).toFixed(2)),
          },
        ]),
    ),
  };
}

async function main() {
  const { values } = parseArgs({ options: { ks: { type: 'string', default: '5,10' }, tasks: { type: 'string', default: '100' }, 'no-write': { type: 'boolean', default: false } } });
  const ks = String(values.ks).split(',').map(Number);
  const result = {
    benchmark: 'planner-prompt-tokens',
    date: new Date().toISOString(),
    tokenizer: 'o200k_base (js-tiktoken), over the text of the messages + the JSON of tools and response schema (promptTokens)',
    model_field: MODEL,
    top_k_from: 'the retrieval funnel, embedded driver, BM25 only',
    catalogs: {
      bundled: await measure(bundledCatalog(), ks),
      ultratool: { ...(await measure(ultratoolCatalog(Number(values.tasks)), ks)), note: 'tool_desc.json has no parameters: each tool carries an empty object schema' },
    },
  };
  const json = JSON.stringify(result, null, 2);
  process.stdout.write(`${json}\n`);
  if (!values['no-write']) writeFileSync(join(RESULTS, `${result.date.slice(0, 10)}-prompt-tokens.json`), `${json}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:planner failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
