import { DeterministicPlanner, evaluatePlanner, type PlanEvalResult, type PlanEvalSplit, readTaskBench } from '@toolgate/planner';
import { createRetriever } from '@toolgate/retrieval';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { printTable } from './output';

export interface EvalPlanFlags {
  dataset: string;
  split: string;
  planner: string;
  embedder: string;
  k: number;
  limit?: number;
  learn: boolean;
  json?: boolean;
}

export const CANDIDATE_METHOD = 'union of the retrieval funnel top-k for the whole task and for each sub-goal';

export function toPlanJsonReport(result: PlanEvalResult, flags: EvalPlanFlags, embedder: string): Record<string, unknown> {
  return {
    node_f1: result.nodeF1,
    link_f1: result.linkF1,
    accuracy: result.accuracy,
    samples: result.samples,
    latency_ms: { p50: result.latencyMs.p50, p95: result.latencyMs.p95, mean: result.latencyMs.mean },
    retrieval_latency_ms: result.retrievalLatencyMs,
    split: result.split,
    planner: flags.planner,
    embedder,
    tools: result.tools,
    train_samples: result.trainSamples,
    candidates: { method: CANDIDATE_METHOD, k: flags.k, mean: result.candidates.mean, gold_coverage: result.candidates.goldCoverage },
    decisions: result.decisions,
  };
}

export async function evalPlan(flags: EvalPlanFlags): Promise<void> {
  if (flags.split !== 'test' && flags.split !== 'dev') {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `unknown split "${flags.split}" (available: test, dev)`, [{ path: '--split', message: 'unknown split' }]);
  }
  if (flags.embedder !== 'local' && flags.embedder !== 'none') {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `unknown embedder "${flags.embedder}" (available: local, none)`, [{ path: '--embedder', message: 'unknown embedder' }]);
  }
  if (flags.planner === 'llm') {
    throw new ToolgateError(ErrorCode.INVALID_CONFIG, 'the LLM planner is not configured for plan evaluation yet: use --planner deterministic', [{ path: '--planner', message: 'not configured' }]);
  }
  if (flags.planner !== 'deterministic') {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `unknown planner "${flags.planner}" (available: deterministic, llm)`, [{ path: '--planner', message: 'unknown planner' }]);
  }
  const dataset = await readTaskBench(flags.dataset);
  const retriever = await createRetriever({ embedder: flags.embedder });
  const result = await evaluatePlanner(dataset, retriever, ({ graph }) => new DeterministicPlanner({ graph, embedder: retriever.embedder }), {
    split: flags.split as PlanEvalSplit,
    k: flags.k,
    learn: flags.learn,
    usagePerTool: 40,
    limit: flags.limit,
  }).finally(() => retriever.index.close());
  if (flags.json) return void process.stdout.write(`${JSON.stringify(toPlanJsonReport(result, flags, retriever.model), null, 2)}\n`);
  const pct = (v: number) => (100 * v).toFixed(1);
  process.stdout.write(
    `${result.samples} tasks of split "${flags.split}" over ${result.tools} tools (planner ${flags.planner}, embedder ${retriever.model}, ${result.trainSamples} training samples learned)\n`,
  );
  printTable(
    ['node-F1', 'link-F1', 'accuracy', 'plan p50 ms', 'plan p95 ms'],
    [[pct(result.nodeF1), pct(result.linkF1), pct(result.accuracy), result.latencyMs.p50.toFixed(2), result.latencyMs.p95.toFixed(2)]],
  );
  process.stdout.write(
    `candidates: ${CANDIDATE_METHOD} (k=${flags.k}): ${result.candidates.mean.toFixed(1)} per task, all gold tools present in ${pct(result.candidates.goldCoverage)}%; retrieval p50 ${result.retrievalLatencyMs.p50.toFixed(2)} ms\n`,
  );
}
