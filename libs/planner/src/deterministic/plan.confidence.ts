import type { Decision } from '../plan/plan.types';
import type { ToolMatch } from './tool.matcher';

/**
 * How sure the deterministic planner is, 0..1, from the evidence it decided on: how well the chosen
 * tool fits (its score against the threshold), how far ahead of the next candidate it is, and whether
 * the text names it or only scores close to it. `TOOLGATE_PLANNER=auto` hands a plan below its
 * threshold to the LLM planner; the eval reports accuracy by confidence, so the scale can be checked.
 */

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

/** Nothing to weigh: no candidates, a caller's own tool choice. */
export const CERTAIN = 1;
/** A decision the planner cannot make at all (toolChoice NONE: only a model answers without a tool). */
export const UNABLE = 0;
/** No evidence either way: a task with nothing a tool could do, a failed step with no other candidate. */
export const UNDECIDED = 0.5;

/** A second choice after the first one failed is less sure than a first choice. */
export const replacementConfidence = (chosen: ToolMatch, alternatives: readonly ToolMatch[], minScore: number) => 0.8 * matchConfidence(chosen, alternatives, minScore, true);

/** A tool chosen for a sub-goal: a clear, well-separated fit the text names is near 1; a tie is about 0.55, below the default threshold. */
export function matchConfidence(chosen: ToolMatch, alternatives: readonly ToolMatch[], minScore: number, named: boolean): number {
  const runnerUp = alternatives.find((m) => m.candidate.id !== chosen.candidate.id)?.score ?? 0;
  const margin = chosen.score > 0 ? clamp01((chosen.score - runnerUp) / chosen.score) : 0;
  const fit = minScore > 0 ? Math.min(1, chosen.score / (2 * minScore)) : 1;
  return clamp01(0.2 + 0.35 * fit + 0.45 * Math.min(1, 2 * margin)) * (named ? 1 : 0.8);
}

/** NO_MATCH: sure when the closest tool is far below the threshold, unsure when it came close. */
export function noMatchConfidence(closest: number | undefined, minScore: number, named: boolean): number {
  if (closest === undefined || closest <= 0) return 1;
  if (closest >= minScore) return named ? 0.3 : 0.45;
  return clamp01(0.5 + 0.5 * (1 - closest / minScore));
}

/**
 * A plan is as sure as its least sure step. CLARIFY is less sure still: a value the filler did not
 * find may be in the text in a form a model reads.
 */
export function planConfidence(steps: readonly number[], decision: Decision): number {
  const least = steps.length > 0 ? Math.min(...steps) : 1;
  return Math.round(100 * (decision === 'CLARIFY' ? least * 0.5 : least)) / 100;
}
