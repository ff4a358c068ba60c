import type { ToolDescriptor } from '@toolgate/sdk';

/** The shapes of DESIGN.md, and the inputs the planners work from. */
export type Decision = 'USE_TOOLS' | 'ANSWER_DIRECTLY' | 'CLARIFY' | 'NO_MATCH';

/** An argument bound to an earlier step's output: `steps.<id>.output.<json pointer>`. */
export interface Binding {
  $ref: string;
}

export interface PlanStep {
  id: string;
  /** `namespace/name@version` or `namespace/name`. */
  tool: string;
  arguments: Record<string, unknown>;
  dependsOn: string[];
  reason: string;
}

/** A required argument the task did not give: what CLARIFY asks for. */
export interface MissingArgument {
  /** The step (or call) it belongs to, when there is one. */
  step?: string;
  tool: string;
  /** JSON pointer into the tool's arguments, e.g. `/city`. */
  path: string;
  description?: string;
}

/** Tokens a model reported for the requests behind one answer. */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Chat-completion requests answered (repair rounds included; client retries are not). */
  requests: number;
}

export interface Plan {
  id: string;
  decision: Decision;
  question?: string;
  steps: PlanStep[];
  /** Set with CLARIFY: every required argument the task left open. */
  missing?: MissingArgument[];
  /** Why this decision: for NO_MATCH / ANSWER_DIRECTLY / CLARIFY, and for refusals (e.g. an injected instruction ignored). */
  explanation?: string;
  /** Model tokens spent on this plan (LLM planner only), summed over its repair rounds. */
  usage?: TokenUsage;
  /** How sure the planner is of this plan, 0..1: what `TOOLGATE_PLANNER=auto` escalates on. */
  confidence?: number;
  /** Which planner made it (`deterministic`, `llm`): with `auto`, whether the task was escalated. */
  planner?: string;
}

/** An image that is part of a task: base64 data with its declared type. */
export interface TaskImage {
  mimeType: string;
  /** Base64 of the image bytes. */
  data: string;
  /** File name or path the caller gave, when any (argument filling may bind an image path to it). */
  name?: string;
}

/** Steers generation only: never grants a tool the caller may not use. */
export type ToolChoice = 'AUTO' | 'NONE' | 'REQUIRED' | { tool: string };

export interface TaskInput {
  text: string;
  images: TaskImage[];
  sessionId?: string;
  toolChoice?: ToolChoice;
  /** ISO-8601 instant that relative dates ("tomorrow", "next Friday") resolve against; default now. */
  referenceTime?: string;
  /** IANA zone for dates and times without one; default UTC. */
  timeZone?: string;
}

/** Who the plan is for: planners never widen what the candidates already allow. */
export interface PlanningPrincipal {
  tenant: string;
  subject: string;
  roles: string[];
}

/**
 * A tool the planner may name: the retrieval funnel's output, already filtered to what the principal
 * may discover. A planner only ever names tools from its candidates.
 */
export interface PlanningCandidate {
  /** `namespace/name`. */
  id: string;
  version: string;
  descriptor: ToolDescriptor;
  /** Fused retrieval score (higher is better) and rank (1 = best). */
  score: number;
  rank: number;
}

/** One proposed call (a plan step without the DAG links). */
export interface ToolCall {
  tool: string;
  arguments: Record<string, unknown>;
  reason: string;
}

export interface Selection {
  decision: Decision;
  question?: string;
  missing?: MissingArgument[];
  explanation?: string;
  /** Model tokens spent on this selection (LLM planner only), summed over its repair rounds. */
  usage?: TokenUsage;
  /** As on Plan. */
  confidence?: number;
  planner?: string;
  candidates: PlanningCandidate[];
  calls: ToolCall[];
}

/** What the executor tells the planner after a step failed: the repair loop's input. */
export interface ReplanFeedback {
  task: TaskInput;
  candidates: PlanningCandidate[];
  principal: PlanningPrincipal;
  failedStep: string;
  error: { code: string; message: string; path?: string };
  /** 1 for the first repair; the executor bounds it. */
  attempt: number;
  /** Outputs of the steps that already succeeded, by step id. */
  completed: Record<string, unknown>;
}
