import { createPlanner } from '@toolgate/planner';
import { type CallEvalResult, type CallSampleRecord, evaluateCalls, readBfclAnswers, readBfclSamples, withDistractors } from '@toolgate/planner/evaluation';
import { createRetriever } from '@toolgate/retrieval';
import type { Command } from 'commander';
import { datasetPath, positiveInt } from '../cli.options';
import { printTable } from '../cli.output';
import { type EvalRunFlags, evalRunOptions, PerSampleWriter } from '../eval-run.options';
import { fetchLocalModelIfMissing } from '../local-model.fetch';

export interface EvalCallsFlags extends EvalRunFlags {
  file: string;
  answers?: string;
  limit?: number;
  distractors?: number;
  json?: boolean;
}

export function registerEvalCallsCommand(evaluation: Command): void {
  evaluation
    .command('calls')
    .description("function selection and arguments on BFCL-style samples (a request and its own functions), scored with BFCL's AST-checker semantics")
    .requiredOption('--file <questions>', 'BFCL questions, JSON lines: {id, question, function}')
    .option('--answers <possible_answer>', 'the matching possible_answer file; without it every sample is an irrelevance sample (the right answer is no call)')
    .option('--planner <name>', 'deterministic, auto (deterministic, the LLM when unsure; reports how many escalated) or llm', 'deterministic')
    .option('--embedder <name>', 'local (the in-process model) or none (lexical only)', 'local')
    .option('--limit <n>', 'score only the first n samples', positiveInt)
    .option('--distractors <n>', "offer each request n more functions drawn from the set's other samples (the same draw every run), as a server's planner sees many candidates", positiveInt)
    .option('--per-sample <file>', 'write one JSON line per sample: id, text, gold, predicted, decision, why, confidence, planner, correct, verdict')
    .option('--json', 'print one JSON object only')
    .action(evalCalls);
}

/** Runs the evaluation the flags describe; the environment configures the LLM planner's endpoint. */
export async function runCallsEval(flags: EvalCallsFlags, env: NodeJS.ProcessEnv = process.env): Promise<{ result: CallEvalResult; model: string }> {
  const { planner, embedder } = evalRunOptions(flags, env);
  const samples = withDistractors(await readBfclSamples(datasetPath(flags.file, '--file')), flags.distractors ?? 0);
  const answers = flags.answers !== undefined ? await readBfclAnswers(datasetPath(flags.answers, '--answers')) : undefined;
  const perSample = PerSampleWriter.open(flags.perSample);
  fetchLocalModelIfMissing({ embedder });
  const retriever = await createRetriever({ embedder });
  try {
    const result = await evaluateCalls(samples, answers, retriever, createPlanner(planner, { embedder: retriever.embedder }), {
      limit: flags.limit,
      onSample: perSample ? (record: CallSampleRecord) => perSample.write(record) : undefined,
    });
    return { result, model: retriever.model };
  } finally {
    await retriever.index.close();
    perSample?.close();
  }
}

function toCallsJsonReport(result: CallEvalResult, flags: EvalCallsFlags, embedder: string): Record<string, unknown> {
  const relevant = result.relevantSamples > 0;
  const irrelevant = result.irrelevantSamples > 0;
  return {
    samples: result.samples,
    relevant_samples: result.relevantSamples,
    irrelevant_samples: result.irrelevantSamples,
    ...(relevant
      ? {
          selection_accuracy: result.selectionAccuracy,
          retriever_selection: result.retrieverSelection,
          ast_accuracy: result.astAccuracy,
          false_clarify_rate: result.falseClarifyRate,
          no_match_rate: result.noMatchRate,
          failures: {
            no_call: result.failures.noCall,
            wrong_count: result.failures.wrongCount,
            wrong_function: result.failures.wrongFunction,
            arguments: result.failures.arguments,
          },
        }
      : {}),
    ...(irrelevant ? { abstain_accuracy: result.abstainAccuracy, irrelevant_no_call: result.irrelevantNoCall } : {}),
    decisions: result.decisions,
    by_planner: result.byPlanner,
    calibration: result.calibration,
    latency_ms: result.latencyMs,
    protocol:
      'BFCL AST checker: call count equal, calls matched in any order; required parameters present, none outside the schema; values equal to an acceptable one (strings lower-cased without spaces and ,./-_*^; an integer for a float); an optional parameter may be left out when "" is acceptable. Selection: the plan\'s functions equal the expected ones. Retriever selection: the funnel\'s top n, n = distinct expected functions. Abstain: NO_MATCH or ANSWER_DIRECTLY',
    planner: flags.planner,
    distractors: flags.distractors ?? 0,
    embedder,
  };
}

async function evalCalls(flags: EvalCallsFlags): Promise<void> {
  const { result, model } = await runCallsEval(flags);
  if (flags.json) return void process.stdout.write(`${JSON.stringify(toCallsJsonReport(result, flags, model), null, 2)}\n`);
  const pct = (v: number) => (100 * v).toFixed(1);
  process.stdout.write(`${result.samples} samples (${result.relevantSamples} with an answer, ${result.irrelevantSamples} irrelevance), planner ${flags.planner}, embedder ${model}\n`);
  if (result.relevantSamples > 0) {
    printTable(
      ['AST accuracy', 'selection', 'retriever selection', 'false CLARIFY', 'NO_MATCH', 'plan p50 ms'],
      [[pct(result.astAccuracy), pct(result.selectionAccuracy), pct(result.retrieverSelection), pct(result.falseClarifyRate), pct(result.noMatchRate), result.latencyMs.p50.toFixed(2)]],
    );
    const { failures } = result;
    process.stdout.write(`failures: no call ${failures.noCall}, wrong call count ${failures.wrongCount}, wrong function ${failures.wrongFunction}\n`);
    const rows = Object.entries(failures.arguments).flatMap(([kind, byType]) =>
      Object.entries(byType)
        .sort(([, a], [, b]) => b - a)
        .map(([type, n]) => [kind, type, String(n)]),
    );
    if (rows.length > 0) printTable(['argument failure', 'parameter type', 'calls'], rows);
  }
  if (result.irrelevantSamples > 0) {
    printTable(['abstain (NO_MATCH / ANSWER_DIRECTLY)', 'no call (CLARIFY too)'], [[pct(result.abstainAccuracy), pct(result.irrelevantNoCall)]]);
  }
  printTable(
    ['answered by', 'samples', 'right'],
    Object.entries(result.byPlanner).map(([name, r]) => [name === 'llm' && flags.planner === 'auto' ? 'llm (escalated)' : name, String(r.samples), pct(r.accuracy)]),
  );
  printTable(
    ['confidence', 'samples', 'right'],
    result.calibration.map((band) => [`${band.from.toFixed(1)}-${band.to.toFixed(1)}`, String(band.samples), pct(band.accuracy)]),
  );
  process.stdout.write(
    `decisions: ${Object.entries(result.decisions)
      .sort(([, a], [, b]) => b - a)
      .map(([d, n]) => `${d} ${n}`)
      .join(', ')}\n`,
  );
}
