import { createPlanner } from '@toolgate/planner';
import { evaluatePlanner, FLOOR_CHAIN_LENGTHS, type PlanEvalResult, type PlanEvalSplit, type PlanFloor, type PlanSampleRecord, readTaskBench } from '@toolgate/planner/evaluation';
import { createRetriever } from '@toolgate/retrieval';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import type { Command } from 'commander';
import { datasetPath, positiveInt } from '../cli.options';
import { printTable } from '../cli.output';
import { type EvalRunFlags, evalRunOptions, PerSampleWriter } from '../eval-run.options';
import { fetchLocalModelIfMissing } from '../local-model.fetch';

export interface EvalPlanFlags extends EvalRunFlags {
  dataset: string;
  split: string;
  k: number;
  limit?: number;
  learn: boolean;
  json?: boolean;
}

export function registerEvalPlanCommand(evaluation: Command): void {
  evaluation
    .command('plan')
    .description('node-F1, link-F1, accuracy and planning latency on a TaskBench-format folder (data.json, tool_desc.json, graph_desc.json, split_ids.json)')
    .requiredOption('--dataset <dir>', 'the TaskBench-format folder')
    .option('--split <name>', 'test (the test_ids of split_ids.json) or dev (a fixed fifth of the other samples, for tuning)', 'test')
    .option('--planner <name>', 'deterministic, auto (deterministic, the LLM when unsure; reports how many escalated) or llm', 'deterministic')
    .option('--embedder <name>', 'local (the in-process model) or none (lexical only)', 'local')
    .option('--k <n>', 'retrieval top-k per sub-goal and for the whole task', positiveInt, 5)
    .option('--limit <n>', 'score only the first n tasks of the split', positiveInt)
    .option('--no-learn', 'do not learn usage examples and tool-graph edges from the training samples')
    .option('--per-sample <file>', 'write one JSON line per task: id, type, request, gold, predicted, decision, why, node_f1, link_f1')
    .option('--json', 'print one JSON object only')
    .action(evalPlan);
}

const CANDIDATE_METHOD =
  "union of the retrieval funnel top-k for the whole task and for each sub-goal, ranked as the server ranks them: the whole task's hits in funnel order, then those only a sub-goal found";
const FLOOR_METHOD = `the retrieval funnel's top k for the whole task chained in rank order, best of k = ${FLOOR_CHAIN_LENGTHS.join(', ')}`;

const floorJson = (floor: PlanFloor) => ({ k: floor.k, node_f1: floor.nodeF1, link_f1: floor.linkF1 });

function toPlanJsonReport(result: PlanEvalResult, flags: EvalPlanFlags, embedder: string): Record<string, unknown> {
  return {
    node_f1: result.nodeF1,
    link_f1: result.linkF1,
    accuracy: result.accuracy,
    samples: result.samples,
    multi_step_samples: result.multiStepSamples,
    protocol: 'TaskBench/GNN4TaskPlan: per-sample set F1 (an empty side scores 0), macro mean; link-F1 over multi-step samples only',
    latency_ms: { p50: result.latencyMs.p50, p95: result.latencyMs.p95, mean: result.latencyMs.mean },
    retrieval_latency_ms: result.retrievalLatencyMs,
    split: result.split,
    planner: flags.planner,
    embedder,
    tools: result.tools,
    train_samples: result.trainSamples,
    candidates: { method: CANDIDATE_METHOD, k: flags.k, mean: result.candidates.mean, gold_coverage: result.candidates.goldCoverage },
    decisions: result.decisions,
    floor: { method: FLOOR_METHOD, ...floorJson(result.floor) },
    floors: result.floors.map(floorJson),
    by_type: Object.fromEntries(
      Object.entries(result.byType).map(([type, report]) => [
        type,
        { samples: report.samples, multi_step_samples: report.multiStepSamples, node_f1: report.nodeF1, link_f1: report.linkF1, accuracy: report.accuracy },
      ]),
    ),
    by_planner: Object.fromEntries(
      Object.entries(result.byPlanner).map(([name, report]) => [
        name,
        { samples: report.samples, node_f1: report.nodeF1, link_f1: report.linkF1, accuracy: report.accuracy, latency_ms: report.latencyMs },
      ]),
    ),
  };
}

/** Runs the evaluation the flags describe; the environment configures the LLM planner's endpoint. */
export async function runPlanEval(flags: EvalPlanFlags, env: NodeJS.ProcessEnv = process.env): Promise<{ result: PlanEvalResult; model: string }> {
  if (flags.split !== 'test' && flags.split !== 'dev') {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `unknown split "${flags.split}" (available: test, dev)`, [{ path: '--split', message: 'unknown split' }]);
  }
  const { planner, embedder } = evalRunOptions(flags, env);
  const dataset = await readTaskBench(datasetPath(flags.dataset, '--dataset'));
  const perSample = PerSampleWriter.open(flags.perSample);
  fetchLocalModelIfMissing({ embedder });
  const retriever = await createRetriever({ embedder });
  const onSample = perSample ? ({ nodeF1, linkF1, ...rest }: PlanSampleRecord) => perSample.write({ ...rest, node_f1: nodeF1, ...(linkF1 !== undefined ? { link_f1: linkF1 } : {}) }) : undefined;
  try {
    const result = await evaluatePlanner(dataset, retriever, ({ graph }) => createPlanner(planner, { graph, embedder: retriever.embedder }), {
      split: flags.split as PlanEvalSplit,
      k: flags.k,
      learn: flags.learn,
      usagePerTool: 40,
      limit: flags.limit,
      onSample,
    });
    return { result, model: retriever.model };
  } finally {
    await retriever.index.close();
    perSample?.close();
  }
}

async function evalPlan(flags: EvalPlanFlags): Promise<void> {
  const { result, model } = await runPlanEval(flags);
  if (flags.json) return void process.stdout.write(`${JSON.stringify(toPlanJsonReport(result, flags, model), null, 2)}\n`);
  const pct = (v: number) => (100 * v).toFixed(1);
  process.stdout.write(`${result.samples} tasks of split "${flags.split}" over ${result.tools} tools (planner ${flags.planner}, embedder ${model}, ${result.trainSamples} training samples learned)\n`);
  printTable(
    ['node-F1', `link-F1 (${result.multiStepSamples} multi-step)`, 'accuracy', 'plan p50 ms', 'plan p95 ms'],
    [[pct(result.nodeF1), result.multiStepSamples === 0 ? 'n/a' : pct(result.linkF1), pct(result.accuracy), result.latencyMs.p50.toFixed(2), result.latencyMs.p95.toFixed(2)]],
  );
  printTable(
    ['floor (retrieval chain)', 'node-F1', 'link-F1'],
    result.floors.map((f) => [`top ${f.k}${f === result.floor ? ' (floor)' : ''}`, pct(f.nodeF1), pct(f.linkF1)]),
  );
  printTable(
    ['type', 'tasks', 'node-F1', 'link-F1', 'accuracy'],
    Object.entries(result.byType).map(([type, r]) => [type, String(r.samples), pct(r.nodeF1), r.multiStepSamples === 0 ? 'n/a' : pct(r.linkF1), pct(r.accuracy)]),
  );
  if (flags.planner === 'auto') {
    printTable(
      ['answered by', 'tasks', 'node-F1', 'link-F1', 'accuracy', 'plan p50 ms'],
      Object.entries(result.byPlanner).map(([name, r]) => [
        name === 'llm' ? 'llm (escalated)' : name,
        String(r.samples),
        pct(r.nodeF1),
        r.multiStepSamples === 0 ? 'n/a' : pct(r.linkF1),
        pct(r.accuracy),
        r.latencyMs.p50.toFixed(2),
      ]),
    );
  }
  const mix = Object.entries(result.decisions)
    .sort(([, a], [, b]) => b - a)
    .map(([decision, n]) => `${decision} ${n}`)
    .join(', ');
  process.stdout.write(`decisions: ${mix}\n`);
  process.stdout.write(
    `candidates: ${CANDIDATE_METHOD} (k=${flags.k}): ${result.candidates.mean.toFixed(1)} per task, all gold tools present in ${pct(result.candidates.goldCoverage)}%; retrieval p50 ${result.retrievalLatencyMs.p50.toFixed(2)} ms\n`,
  );
}
