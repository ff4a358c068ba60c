import type { ComplexityEstimatorArgs } from '@nestjs/graphql';

/**
 * What one unit of work costs, in the units GRAPHQL_MAX_COMPLEXITY and the rate limit count. A field
 * is 1 (graphql-query-complexity's default); these price what an operation makes the server do.
 */
export const COST = {
  /** One tool call: a worker round trip, a timeout's worth of a bulkhead slot. */
  toolCall: 10,
  /** One retrieval funnel pass (BM25, kNN, fusion, rerank). */
  retrieval: 10,
  /** One planner round (the deterministic planner, or an LLM request). */
  planning: 20,
  /** One image read (OCR process or a vision request). */
  image: 50,
} as const;

/** The server's settings that bound an operation's work, given to every estimator. */
export interface CostContext {
  /** Results a search returns without `k`, and the most it returns whatever `k` asks. */
  defaultK: number;
  maxK: number;
  /** Steps one plan may have, and re-plans per run (runTask). */
  maxSteps: number;
  maxReplans: number;
  /** Runs a listing returns without `limit`. */
  defaultRunLimit: number;
}

type EstimatorArgs = Pick<ComplexityEstimatorArgs, 'args' | 'childComplexity'> & { context?: CostContext };
type Estimator = (options: EstimatorArgs) => number;

const contextOf = (context: CostContext | undefined): CostContext => {
  // Estimators only run inside getComplexity, which the operation limits always call with a context.
  if (!context) throw new Error('operation cost estimated without a cost context');
  return context;
};

const imagesOf = (input: unknown): number => {
  const images = (input as { images?: unknown } | undefined)?.images;
  return Array.isArray(images) ? images.length : 0;
};

/** A search by its retrieval pass, its images and k results, each costing what is selected of it. */
export const searchToolsCost: Estimator = ({ args, childComplexity, context }) => {
  const { defaultK, maxK } = contextOf(context);
  const k = Math.min(typeof args.input?.k === 'number' ? args.input.k : defaultK, maxK);
  return COST.retrieval + imagesOf(args.input) * COST.image + k * Math.max(childComplexity, 1);
};

/** How many candidates past the cut a search funnel report shows: as many as were kept, at most this. */
export const FUNNEL_BEYOND_MAX = 20;
export const funnelBeyond = (k: number): number => Math.min(k, FUNNEL_BEYOND_MAX);

/** A funnel report: a search whose answer also holds the candidates just past the cut. */
export const searchFunnelCost: Estimator = ({ args, childComplexity, context }) => {
  const { defaultK, maxK } = contextOf(context);
  const k = Math.min(typeof args.input?.k === 'number' ? args.input.k : defaultK, maxK);
  return COST.retrieval + imagesOf(args.input) * COST.image + (k + funnelBeyond(k)) * Math.max(childComplexity, 1);
};

/** Selection or planning: a retrieval pass, a planner round and the task's images; nothing runs. */
export const planningCost: Estimator = ({ args, childComplexity }) => COST.retrieval + COST.planning + imagesOf(args.task) * COST.image + childComplexity;

/** runTask: planning, then every step the run may take, re-plans included (each re-plan plans again). */
export const runTaskCost: Estimator = ({ args, childComplexity, context }) => {
  const { maxSteps, maxReplans } = contextOf(context);
  const rounds = 1 + maxReplans;
  return rounds * (COST.retrieval + COST.planning) + imagesOf(args.task) * COST.image + rounds * maxSteps * COST.toolCall + childComplexity;
};

/** executePlan: one tool call per step as given (a caller's plan is never re-planned). */
export const executePlanCost: Estimator = ({ args, childComplexity }) => {
  const steps = Array.isArray(args.plan?.steps) ? args.plan.steps.length : 0;
  return Math.max(steps, 1) * COST.toolCall + childComplexity;
};

/** approveStep resumes a run: at most the rest of its steps call tools. */
export const resumeRunCost: Estimator = ({ childComplexity, context }) => contextOf(context).maxSteps * COST.toolCall + childComplexity;

/** A run listing: each of up to `limit` runs costs what is selected of it. */
/** Tool quality reads up to 500 runs' steps in one store query and aggregates them: priced like a 50-run listing. */
export const toolQualityCost: Estimator = ({ childComplexity }) => 51 + childComplexity;

export const listRunsCost: Estimator = ({ args, childComplexity, context }) => {
  const limit = typeof args.filter?.limit === 'number' ? args.filter.limit : contextOf(context).defaultRunLimit;
  return 1 + limit * Math.max(childComplexity, 1);
};
