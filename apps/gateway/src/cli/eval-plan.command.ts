import {
  createPlanner,
  DeterministicPlanner,
  evaluatePlanner,
  type PlanEvalResult,
  type PlanEvalSplit,
  type Planner,
  type PlannerFactoryContext,
  plannerEnvSchema,
  plannerOptionsFromEnv,
  readTaskBench,
} from '@toolgate/planner';
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

/**
 * The LLM planner on the endpoint the environment configures (as the server reads it): an eval that
 * names `--planner llm` with no endpoint fails before any sample instead of on the first request.
 */
function llmPlannerFromEnv(env: NodeJS.ProcessEnv): () => Planner {
  const parsed = plannerEnvSchema.safeParse(env);
  if (!parsed.success) {
    const details = parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
    throw new ToolgateError(ErrorCode.INVALID_CONFIG, 'invalid environment for --planner llm', details);
  }
  const { llm } = plannerOptionsFromEnv(parsed.data);
  if (!llm.apiKey && !llm.baseURL) {
    throw new ToolgateError(ErrorCode.INVALID_CONFIG, '--planner llm needs an OpenAI-compatible endpoint: set OPENAI_API_KEY (api.openai.com) or OPENAI_BASE_URL (another server)', [
      { path: 'OPENAI_API_KEY', message: 'is not set' },
      { path: 'OPENAI_BASE_URL', message: 'is not set' },
    ]);
  }
  return () => createPlanner({ planner: 'llm', llm });
}

/** Runs the evaluation the flags describe; the environment configures the LLM planner's endpoint. */
export async function runPlanEval(flags: EvalPlanFlags, env: NodeJS.ProcessEnv = process.env): Promise<{ result: PlanEvalResult; model: string }> {
  if (flags.split !== 'test' && flags.split !== 'dev') {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `unknown split "${flags.split}" (available: test, dev)`, [{ path: '--split', message: 'unknown split' }]);
  }
  if (flags.embedder !== 'local' && flags.embedder !== 'none') {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `unknown embedder "${flags.embedder}" (available: local, none)`, [{ path: '--embedder', message: 'unknown embedder' }]);
  }
  if (flags.planner !== 'deterministic' && flags.planner !== 'llm') {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `unknown planner "${flags.planner}" (available: deterministic, llm)`, [{ path: '--planner', message: 'unknown planner' }]);
  }
  const llm = flags.planner === 'llm' ? llmPlannerFromEnv(env) : null;
  const dataset = await readTaskBench(flags.dataset);
  const retriever = await createRetriever({ embedder: flags.embedder });
  const plannerFor = ({ graph }: PlannerFactoryContext): Planner => llm?.() ?? new DeterministicPlanner({ graph, embedder: retriever.embedder });
  const result = await evaluatePlanner(dataset, retriever, plannerFor, {
    split: flags.split as PlanEvalSplit,
    k: flags.k,
    learn: flags.learn,
    usagePerTool: 40,
    limit: flags.limit,
  }).finally(() => retriever.index.close());
  return { result, model: retriever.model };
}

export async function evalPlan(flags: EvalPlanFlags): Promise<void> {
  const { result, model } = await runPlanEval(flags);
  if (flags.json) return void process.stdout.write(`${JSON.stringify(toPlanJsonReport(result, flags, model), null, 2)}\n`);
  const pct = (v: number) => (100 * v).toFixed(1);
  process.stdout.write(`${result.samples} tasks of split "${flags.split}" over ${result.tools} tools (planner ${flags.planner}, embedder ${model}, ${result.trainSamples} training samples learned)\n`);
  printTable(
    ['node-F1', 'link-F1', 'accuracy', 'plan p50 ms', 'plan p95 ms'],
    [[pct(result.nodeF1), pct(result.linkF1), pct(result.accuracy), result.latencyMs.p50.toFixed(2), result.latencyMs.p95.toFixed(2)]],
  );
  process.stdout.write(
    `candidates: ${CANDIDATE_METHOD} (k=${flags.k}): ${result.candidates.mean.toFixed(1)} per task, all gold tools present in ${pct(result.candidates.goldCoverage)}%; retrieval p50 ${result.retrievalLatencyMs.p50.toFixed(2)} ms\n`,
  );
}
