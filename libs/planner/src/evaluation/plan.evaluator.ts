import { createHash } from 'node:crypto';
import { buildToolDocument, type ToolRetriever } from '@toolgate/retrieval';
import { percentile } from '@toolgate/retrieval/evaluation';
import { ErrorCode, type ToolDescriptor, ToolgateError } from '@toolgate/sdk';
import { splitSubGoals } from '../deterministic/sub-goal.splitter';
import { ToolGraph, toolKey } from '../graph/tool.graph';
import type { Plan, PlanningCandidate } from '../plan/plan.types';
import type { Planner } from '../planning/planner.port';
import { ALL_TOOLS, datasetDescriptor, decisionWhy, EVAL_PRINCIPAL, EVAL_REFERENCE_TIME } from './eval.catalog';
import { type PlanGraph, type PlanReport, PlanScorer } from './plan.metrics';
import { parseStepLine, type TaskBenchDataset, type TaskBenchSample, type TaskBenchTool } from './taskbench.reader';

/**
 * `test`: the ids of `split_ids.json`, learning from every other sample. `dev`: a fixed fifth of the
 * non-test samples (by a hash of the id), learning from the other four fifths: what tuning looks at.
 */
export type PlanEvalSplit = 'test' | 'dev';

export interface PlanEvalOptions {
  split: PlanEvalSplit;
  /** Candidates: the union of the retriever's top k for each sub-goal and for the whole task. */
  k: number;
  /** Learn from the training samples: their gold chains feed the tool graph, their step texts become usage examples. */
  learn: boolean;
  /** Usage examples kept per tool (bounded, de-duplicated). */
  usagePerTool: number;
  /** Score only the first n samples of the split (in file order). */
  limit?: number;
  onProgress?: (done: number, total: number) => void;
  /** Called once per scored task, in order: what `--per-sample` writes. */
  onSample?: (record: PlanSampleRecord) => void;
}

/** One scored task: what was asked, what was expected, what the planner did and why. */
export interface PlanSampleRecord {
  id: string;
  type: string;
  request: string;
  gold: PlanGraph;
  predicted: PlanGraph;
  decision: string;
  why: string;
  /** The planner's own confidence, and which planner answered (with `auto`: whether it escalated). */
  confidence?: number;
  planner?: string;
  nodeF1: number;
  /** Absent for a single-step gold plan (the protocol scores links on multi-step plans only). */
  linkF1?: number;
}

/** The retriever's top k for the whole task, chained in rank order: the trivial plan a planner must beat. */
export interface PlanFloor {
  k: number;
  nodeF1: number;
  linkF1: number;
}

/** Chain lengths the floor is computed for; the floor reported is the strongest of them. */
export const FLOOR_CHAIN_LENGTHS = [1, 2, 3] as const;

export const DEFAULT_PLAN_EVAL: PlanEvalOptions = { split: 'test', k: 5, learn: true, usagePerTool: 40 };

export interface PlanEvalResult extends PlanReport {
  split: PlanEvalSplit;
  tools: number;
  trainSamples: number;
  /** Mean candidates handed to the planner, and how often they held every gold tool. */
  candidates: { mean: number; goldCoverage: number };
  retrievalLatencyMs: { p50: number; p95: number };
  /** Decisions the planner took, counted; `FAILED:<code>` for a plan that ended in a typed error. */
  decisions: Record<string, number>;
  /** The best of the retrieval-chain floors (by node-F1 + link-F1), and each of them. */
  floor: PlanFloor;
  floors: PlanFloor[];
  /** The same scores per sample `type` (TaskBench: single, chain, dag); "untyped" when the set has none. */
  byType: Record<string, PlanReport>;
  /** The same scores per planner that answered: with `auto`, `llm` holds the escalated tasks. */
  byPlanner: Record<string, PlanReport>;
}

export interface PlannerFactoryContext {
  /** `graph_desc.json` edges, plus the training chains when learning is on. */
  graph: ToolGraph;
}

const devDraw = (id: string) => createHash('sha256').update(`dev:${id}`).digest().readUInt32BE(0) / 2 ** 32;
const DEV_FRACTION = 0.2;

export function splitSamples(dataset: TaskBenchDataset, split: PlanEvalSplit): { scored: TaskBenchSample[]; train: TaskBenchSample[] } {
  const rest = dataset.samples.filter((s) => !dataset.testIds.has(s.id));
  if (split === 'test') return { scored: dataset.samples.filter((s) => dataset.testIds.has(s.id)), train: rest };
  return { scored: rest.filter((s) => devDraw(s.id) < DEV_FRACTION), train: rest.filter((s) => devDraw(s.id) >= DEV_FRACTION) };
}

const schemaOf = (tool: TaskBenchTool) => ({
  type: 'object',
  properties: Object.fromEntries(tool.parameters.map((p) => [p.name, { ...(p.type ? { type: p.type } : {}), ...(p.description ? { description: p.description } : {}) }])),
});

/** A dataset tool as a descriptor: its learned usage texts become its example queries. */
export function taskBenchDescriptor(tool: TaskBenchTool, usage: readonly string[], companions: readonly string[] = []): ToolDescriptor {
  const descriptor = datasetDescriptor({ name: tool.id, description: tool.description, category: tool.domains, inputSchema: schemaOf(tool), examples: usage });
  return companions.length > 0 ? { ...descriptor, companions: [...companions] } : descriptor;
}

/** What each tool was used for in training samples: the text of its step lines, de-duplicated, the first `limit` kept. */
function learnUsage(train: readonly TaskBenchSample[], limit: number): Map<string, string[]> {
  const usage = new Map<string, Set<string>>();
  for (const sample of train) {
    for (const line of sample.steps) {
      const step = parseStepLine(line);
      if (!step || !sample.nodes.includes(step.tool)) continue;
      const texts = usage.get(step.tool) ?? new Set<string>();
      if (texts.size < limit) texts.add(step.text);
      usage.set(step.tool, texts);
    }
  }
  return new Map([...usage].map(([tool, texts]) => [tool, [...texts]]));
}

/** A chain of tools in the given order: the shape of the retrieval floor. */
export function chainGraph(tools: readonly string[]): PlanGraph {
  return { nodes: [...tools], links: tools.slice(1).map((tool, i): [string, string] => [tools[i], tool]) };
}

/** Tools of a plan and the (source, target) pairs of its dependsOn links. */
export function planGraph(plan: Plan): PlanGraph {
  const toolOf = new Map(plan.steps.map((s) => [s.id, toolKey(s.tool)]));
  return {
    nodes: plan.steps.map((s) => toolKey(s.tool)),
    links: plan.steps.flatMap((s) => s.dependsOn.map((d): [string, string] => [toolOf.get(d) ?? d, toolKey(s.tool)])),
  };
}

/**
 * Scores a planner on a TaskBench set: tools are indexed from `tool_desc.json` (with usage learned from
 * training samples only), each task's candidates come from the retrieval funnel, and the plan's tools
 * and links are compared with the gold chain. Scored samples never reach the index or the graph.
 */
export async function evaluatePlanner(
  dataset: TaskBenchDataset,
  retriever: ToolRetriever,
  createPlanner: (context: PlannerFactoryContext) => Planner,
  options: PlanEvalOptions = DEFAULT_PLAN_EVAL,
): Promise<PlanEvalResult> {
  const { scored: all, train: available } = splitSamples(dataset, options.split);
  const scored = options.limit !== undefined ? all.slice(0, options.limit) : all;
  if (scored.length === 0) throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `split "${options.split}" of ${dataset.dir} holds no samples`, [{ path: '--split', message: 'empty split' }]);
  const train = options.learn ? available : [];

  const graph = ToolGraph.fromEdges(dataset.edges);
  for (const sample of train) graph.observe(sample.nodes);
  const usage = learnUsage(train, options.usagePerTool);
  const candidatesById = new Map<string, PlanningCandidate>();
  // The graph's links are the tools' declarations: retrieval ranks a declared companion beside its source.
  const declared = new Map<string, string[]>();
  for (const { source, target } of dataset.edges) declared.set(source, [...(declared.get(source) ?? []), target]);
  const docs = dataset.tools.map((tool) => {
    const descriptor = taskBenchDescriptor(tool, usage.get(tool.id) ?? [], declared.get(tool.id));
    candidatesById.set(tool.id, { id: tool.id, version: '0', descriptor, score: 0, rank: 0 });
    return buildToolDocument(tool.id, '0', descriptor);
  });
  const wanted = new Set(docs.map((d) => d.id));
  await retriever.index.remove((await retriever.index.ids()).filter((id) => !wanted.has(id)));
  await retriever.indexTools(docs);
  const planner = createPlanner({ graph });

  const scorer = new PlanScorer();
  const floorScorers = FLOOR_CHAIN_LENGTHS.map((k) => ({ k, scorer: new PlanScorer() }));
  const typeScorers = new Map<string, PlanScorer>();
  const plannerScorers = new Map<string, PlanScorer>();
  const retrievalLatencies: number[] = [];
  const decisions: Record<string, number> = {};
  let candidateCount = 0;
  let covered = 0;
  for (const [i, sample] of scored.entries()) {
    const gold = { nodes: sample.nodes, links: sample.links };
    const retrievalStarted = performance.now();
    const queries = [sample.request, ...splitSubGoals(sample.request).subGoals.map((g) => g.text)];
    // Ranked as the server ranks them: the whole task's hits in the funnel's order, then what only a sub-goal found.
    const best = new Map<string, { query: number; rank: number; score: number }>();
    for (const [q, query] of queries.entries()) {
      const { hits } = await retriever.search(query, Math.max(options.k, FLOOR_CHAIN_LENGTHS.at(-1) ?? 1), ALL_TOOLS);
      if (q === 0) for (const floor of floorScorers) floor.scorer.add(chainGraph(hits.slice(0, floor.k).map((h) => h.id)), gold, 0);
      for (const hit of hits.slice(0, options.k)) {
        const seen = best.get(hit.id);
        const mine = { query: Math.min(q, 1), rank: hit.rank, score: hit.fused };
        if (!seen || mine.query < seen.query || (mine.query === seen.query && (hit.rank < seen.rank || (hit.rank === seen.rank && hit.fused > seen.score)))) best.set(hit.id, mine);
      }
    }
    const candidates = [...best]
      .sort(([a, x], [b, y]) => x.query - y.query || x.rank - y.rank || y.score - x.score || a.localeCompare(b))
      .map(([id, hit], r): PlanningCandidate => ({ ...(candidatesById.get(id) as PlanningCandidate), score: hit.score, rank: r + 1 }));
    retrievalLatencies.push(performance.now() - retrievalStarted);
    candidateCount += candidates.length;
    if (sample.nodes.every((n) => best.has(n))) covered++;

    const started = performance.now();
    const outcome = await planner.plan({ text: sample.request, images: [], referenceTime: EVAL_REFERENCE_TIME, timeZone: 'UTC' }, candidates, EVAL_PRINCIPAL).then(
      (plan) => ({
        confidence: plan.confidence,
        planner: plan.planner ?? planner.kind,
        graph: planGraph(plan),
        decision: plan.decision as string,
        why: decisionWhy(
          plan,
          plan.steps.map((s) => `${s.id} ${toolKey(s.tool)}: ${s.reason}`),
        ),
      }),
      (error: unknown) => {
        // A typed failure (a model that timed out or kept answering garbage) scores as an empty plan and is counted, not fatal.
        if (!(error instanceof ToolgateError)) throw error;
        return { graph: { nodes: [], links: [] }, decision: `FAILED:${error.code}`, why: error.message, confidence: undefined, planner: planner.kind };
      },
    );
    const latency = performance.now() - started;
    const score = scorer.add(outcome.graph, gold, latency);
    const type = sample.type ?? 'untyped';
    for (const [scorers, key] of [
      [typeScorers, type],
      [plannerScorers, outcome.planner],
    ] as const) {
      if (!scorers.has(key)) scorers.set(key, new PlanScorer());
      scorers.get(key)?.add(outcome.graph, gold, latency);
    }
    decisions[outcome.decision] = (decisions[outcome.decision] ?? 0) + 1;
    options.onSample?.({
      id: sample.id,
      type,
      request: sample.request,
      gold,
      predicted: outcome.graph,
      decision: outcome.decision,
      why: outcome.why,
      confidence: outcome.confidence,
      planner: outcome.planner,
      nodeF1: score.node,
      ...(score.link !== undefined ? { linkF1: score.link } : {}),
    });
    options.onProgress?.(i + 1, scored.length);
  }
  const sortedRetrieval = retrievalLatencies.sort((a, b) => a - b);
  const floors = floorScorers.map(({ k, scorer: floorScorer }): PlanFloor => {
    const { nodeF1: node, linkF1: link } = floorScorer.report();
    return { k, nodeF1: node, linkF1: link };
  });
  return {
    ...scorer.report(),
    split: options.split,
    tools: dataset.tools.length,
    trainSamples: train.length,
    candidates: { mean: candidateCount / scored.length, goldCoverage: covered / scored.length },
    retrievalLatencyMs: { p50: percentile(sortedRetrieval, 50), p95: percentile(sortedRetrieval, 95) },
    decisions,
    floor: floors.reduce((best, f) => (f.nodeF1 + f.linkF1 > best.nodeF1 + best.linkF1 ? f : best)),
    floors,
    byType: reports(typeScorers),
    byPlanner: reports(plannerScorers),
  };
}

/** Each scorer's report, by key in order. */
const reports = (scorers: Map<string, PlanScorer>): Record<string, PlanReport> =>
  Object.fromEntries([...scorers].sort(([a], [b]) => a.localeCompare(b)).map(([key, scorer]) => [key, scorer.report()]));
