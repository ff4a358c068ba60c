import { buildToolDocument, type ToolRetriever } from '@toolgate/retrieval';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { toolKey } from '../graph/tool.graph';
import type { PlanningCandidate } from '../plan/plan.types';
import type { Planner } from '../planning/planner.port';
import { type ArgumentFailureKind, type CallFailure, type CallsVerdict, checkCalls, type PredictedCall } from './bfcl.checker';
import { type BfclGoldCall, type BfclSample, bfclToJsonSchema } from './bfcl.reader';
import { ALL_TOOLS, datasetDescriptor, decisionWhy, EVAL_PRINCIPAL, EVAL_REFERENCE_TIME } from './eval.catalog';
import { latencySummary, sameSet } from './plan.metrics';

export interface CallEvalOptions {
  /** Score only the first n samples (in file order). */
  limit?: number;
  onProgress?: (done: number, total: number) => void;
  onSample?: (record: CallSampleRecord) => void;
}

/** One scored sample: what was asked and expected, what the planner proposed and why, and the checker's verdict. */
export interface CallSampleRecord {
  id: string;
  text: string;
  /** Absent for an irrelevance sample: the right answer is no call. */
  gold?: BfclGoldCall[];
  predicted: PredictedCall[];
  decision: string;
  why: string;
  /** The planner's own confidence, and which planner answered (with `auto`: whether it escalated). */
  confidence?: number;
  planner?: string;
  /** Relevant samples: the checker's verdict; irrelevance samples: whether the planner abstained. */
  correct: boolean;
  verdict?: CallsVerdict;
}

export interface CallEvalResult {
  samples: number;
  /** Samples with an expected answer, and samples whose right answer is no call. */
  relevantSamples: number;
  irrelevantSamples: number;
  /** Relevant samples whose plan names exactly the expected functions (arguments aside). */
  selectionAccuracy: number;
  /** The same for the retrieval funnel alone: its top n functions, n = the distinct functions expected. */
  retrieverSelection: number;
  /** Relevant samples whose calls pass the AST checker (USE_TOOLS only: a question or a refusal is no call). */
  astAccuracy: number;
  /** Irrelevance samples the planner declined with NO_MATCH or ANSWER_DIRECTLY (a CLARIFY still picked a tool). */
  abstainAccuracy: number;
  /** Irrelevance samples that ended with no call at all, CLARIFY included: what BFCL itself counts. */
  irrelevantNoCall: number;
  /** Relevant samples that ended CLARIFY, and that ended NO_MATCH or ANSWER_DIRECTLY. */
  falseClarifyRate: number;
  noMatchRate: number;
  decisions: Record<string, number>;
  /** Per planner that answered (with `auto`, the escalated samples are `llm`): samples and the share right (AST, or abstaining). */
  byPlanner: Record<string, { samples: number; accuracy: number }>;
  /** The share right per band of the planner's confidence: whether the confidence means what it says. */
  calibration: ConfidenceBand[];
  /**
   * Why relevant samples failed: no call, the call count, a function missing, or the argument check by kind and
   * the parameter's BFCL type (the calls a CLARIFY proposed included, so what it lacked is counted).
   */
  failures: { noCall: number; wrongCount: number; wrongFunction: number; arguments: Record<ArgumentFailureKind, Record<string, number>> };
  latencyMs: { p50: number; p95: number; mean: number };
}

const ABSTAIN = new Set(['NO_MATCH', 'ANSWER_DIRECTLY']);

export interface ConfidenceBand {
  /** `[from, to)`; the last band includes 1. */
  from: number;
  to: number;
  samples: number;
  accuracy: number;
}

/** Samples right per planner and per confidence band (fifths), from the per-sample outcomes. */
export function tallyConfidence(outcomes: readonly { planner?: string; confidence?: number; correct: boolean }[]): Pick<CallEvalResult, 'byPlanner' | 'calibration'> {
  const byPlanner: Record<string, { samples: number; accuracy: number }> = {};
  const right: Record<string, number> = {};
  const bands = [0, 0.2, 0.4, 0.6, 0.8].map((from) => ({ from, to: Math.round((from + 0.2) * 10) / 10, samples: 0, right: 0 }));
  for (const { planner = 'unknown', confidence, correct } of outcomes) {
    byPlanner[planner] ??= { samples: 0, accuracy: 0 };
    byPlanner[planner].samples++;
    right[planner] = (right[planner] ?? 0) + (correct ? 1 : 0);
    if (confidence === undefined) continue;
    const band = bands[Math.min(4, Math.floor(confidence * 5))];
    band.samples++;
    if (correct) band.right++;
  }
  for (const [planner, tally] of Object.entries(byPlanner)) tally.accuracy = right[planner] / tally.samples;
  return {
    byPlanner,
    calibration: bands.filter((b) => b.samples > 0).map(({ from, to, samples, right: r }) => ({ from, to, samples, accuracy: r / samples })),
  };
}

const emptyArgumentFailures = (): Record<ArgumentFailureKind, Record<string, number>> => ({
  missing_required: {},
  unexpected_param: {},
  wrong_type: {},
  wrong_value: {},
  missing_optional: {},
});

/**
 * Scores a planner on BFCL-style samples: each sample's own functions are indexed and ranked by the
 * retrieval funnel (every one is offered, as BFCL offers them), the planner plans on them, and its
 * calls are checked with BFCL's AST-checker semantics. A sample `answers` does not list is an
 * irrelevance sample, whose right answer is no call.
 */
export async function evaluateCalls(
  samples: readonly BfclSample[],
  answers: ReadonlyMap<string, BfclGoldCall[]> | undefined,
  retriever: ToolRetriever,
  planner: Planner,
  options: CallEvalOptions = {},
): Promise<CallEvalResult> {
  const scored = options.limit !== undefined ? samples.slice(0, options.limit) : samples;
  if (answers) {
    const unanswered = scored.filter((s) => !answers.has(s.id)).map((s) => s.id);
    if (unanswered.length > 0)
      throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `the answer file has no answer for ${unanswered.length} sample(s), e.g. "${unanswered[0]}": is it the answer file of these questions?`, [
        { path: '--answers', message: `no answer for ${unanswered.slice(0, 5).join(', ')}` },
      ]);
  }
  const decisions: Record<string, number> = {};
  const failures = { noCall: 0, wrongCount: 0, wrongFunction: 0, arguments: emptyArgumentFailures() };
  const latencies: number[] = [];
  const judged: { planner?: string; confidence?: number; correct: boolean }[] = [];
  let relevant = 0;
  let selected = 0;
  let retrieverSelected = 0;
  let astCorrect = 0;
  let clarified = 0;
  let unmatched = 0;
  let abstained = 0;
  let noCall = 0;

  for (const [i, sample] of scored.entries()) {
    const descriptors = new Map(
      sample.functions.map((fn) => [fn.name, datasetDescriptor({ name: fn.name, description: fn.description, inputSchema: { ...bfclToJsonSchema(fn.parameters), type: 'object' } })]),
    );
    await retriever.index.remove(await retriever.index.ids());
    await retriever.indexTools([...descriptors].map(([name, descriptor]) => buildToolDocument(name, '0', descriptor)));
    const { hits } = await retriever.search(sample.text, descriptors.size, ALL_TOOLS);
    // Every function is offered, as BFCL offers them; the funnel only orders them.
    const ranked = [...hits.map((h) => ({ id: h.id, score: h.fused })), ...[...descriptors.keys()].filter((name) => !hits.some((h) => h.id === name)).map((id) => ({ id, score: 0 }))];
    const candidates = ranked.map(({ id, score }, r): PlanningCandidate => ({ id, version: '0', descriptor: descriptors.get(id) as PlanningCandidate['descriptor'], score, rank: r + 1 }));

    const started = performance.now();
    // Selection is the function-calling surface (`selectTools`): calls with literal arguments, no bindings.
    const outcome = await planner.select({ text: sample.text, images: [], referenceTime: EVAL_REFERENCE_TIME, timeZone: 'UTC' }, candidates, EVAL_PRINCIPAL).then(
      (selection) => ({
        confidence: selection.confidence,
        planner: selection.planner,
        decision: selection.decision as string,
        calls: selection.calls.map((c): PredictedCall => ({ name: toolKey(c.tool), arguments: c.arguments })),
        why: decisionWhy(
          selection,
          selection.calls.map((c) => `${toolKey(c.tool)}: ${c.reason}`),
        ),
      }),
      (error: unknown) => {
        if (!(error instanceof ToolgateError)) throw error;
        return { decision: `FAILED:${error.code}`, calls: [] as PredictedCall[], why: error.message, confidence: undefined, planner: planner.kind };
      },
    );
    latencies.push(performance.now() - started);
    decisions[outcome.decision] = (decisions[outcome.decision] ?? 0) + 1;

    const gold = answers?.get(sample.id);
    let correct: boolean;
    let verdict: CallsVerdict | undefined;
    if (gold) {
      relevant++;
      const goldNames = gold.map((g) => g.name);
      if (
        outcome.calls.length > 0 &&
        sameSet(
          outcome.calls.map((c) => c.name),
          goldNames,
        )
      )
        selected++;
      if (
        sameSet(
          ranked.slice(0, new Set(goldNames).size).map((r) => r.id),
          goldNames,
        )
      )
        retrieverSelected++;
      if (outcome.decision === 'CLARIFY') clarified++;
      if (ABSTAIN.has(outcome.decision)) unmatched++;
      const emitted = outcome.decision === 'USE_TOOLS' ? outcome.calls : [];
      verdict = checkCalls(sample.functions, emitted, gold);
      correct = verdict.ok;
      if (verdict.ok) astCorrect++;
      else if (emitted.length === 0) {
        failures.noCall++;
        // A CLARIFY still proposes calls: what they lack is the argument breakdown's most useful line.
        const proposed = checkCalls(sample.functions, outcome.calls, gold);
        if (!proposed.ok && proposed.kind === 'wrong_calls') countCallFailures(proposed.failures, failures);
      } else if (verdict.kind === 'wrong_count') failures.wrongCount++;
      else countCallFailures(verdict.failures, failures);
    } else {
      correct = ABSTAIN.has(outcome.decision);
      if (correct) abstained++;
      if (outcome.decision !== 'USE_TOOLS') noCall++;
    }
    judged.push({ planner: outcome.planner, confidence: outcome.confidence, correct });
    options.onSample?.({
      id: sample.id,
      text: sample.text,
      ...(gold ? { gold } : {}),
      predicted: outcome.calls,
      decision: outcome.decision,
      why: outcome.why,
      confidence: outcome.confidence,
      planner: outcome.planner,
      correct,
      ...(verdict ? { verdict } : {}),
    });
    options.onProgress?.(i + 1, scored.length);
  }

  const irrelevant = scored.length - relevant;
  const share = (n: number, of: number) => (of === 0 ? 0 : n / of);
  return {
    samples: scored.length,
    relevantSamples: relevant,
    irrelevantSamples: irrelevant,
    selectionAccuracy: share(selected, relevant),
    retrieverSelection: share(retrieverSelected, relevant),
    astAccuracy: share(astCorrect, relevant),
    abstainAccuracy: share(abstained, irrelevant),
    irrelevantNoCall: share(noCall, irrelevant),
    falseClarifyRate: share(clarified, relevant),
    noMatchRate: share(unmatched, relevant),
    decisions,
    ...tallyConfidence(judged),
    failures,
    latencyMs: latencySummary(latencies),
  };
}

/** A sample fails on a function it did not call, or on its first argument problem per expected call. */
function countCallFailures(callFailures: readonly CallFailure[], failures: CallEvalResult['failures']): void {
  if (callFailures.some((f) => f.kind === 'wrong_function')) {
    failures.wrongFunction++;
    return;
  }
  for (const failure of callFailures) {
    if (failure.kind === 'wrong_function') continue;
    const byType = failures.arguments[failure.kind];
    const type = failure.type ?? 'unknown';
    byType[type] = (byType[type] ?? 0) + 1;
  }
}
