import { createHash } from 'node:crypto';
import type { Embedder } from '@toolgate/retrieval';
import { canonicalJson, ErrorCode, type JsonSchema, ToolgateError } from '@toolgate/sdk';
import { fillArguments } from '../arguments/argument.filler';
import { type SchemaField, schemaFields } from '../arguments/schema.fields';
import { ToolGraph, toolKey } from '../graph/tool.graph';
import type { MissingArgument, Plan, PlanningCandidate, PlanningPrincipal, PlanStep, ReplanFeedback, Selection, TaskInput, ToolCall } from '../plan/plan.types';
import { Planner } from '../planning/planner.port';
import { carriedOver, fieldFamilies, groupCarriedOver } from './argument.carrier';
import type { ArgumentFillContext, ArgumentFiller, FilledArguments } from './argument-filler.types';
import { spreadParts } from './part.spreader';
import { CERTAIN, matchConfidence, noMatchConfidence, planConfidence, replacementConfidence, UNABLE, UNDECIDED } from './plan.confidence';
import { asksForSomethingElse, coordinatedParts, namesByName, namesTheTool, saidAtItsName, saysAction, saysWholeName } from './relevance.evidence';
import { bindingTo, isBinding, linkBySchema } from './schema.linker';
import { orderSteps } from './step.orderer';
import { asksAgain, DEFAULT_SPLIT, isAction, type SplitOptions, type SubGoal, splitSubGoals, statesAFact } from './sub-goal.splitter';
import { DEFAULT_MATCHER_WEIGHTS, type MatcherWeights, type ToolMatch, ToolMatcher } from './tool.matcher';

export interface DeterministicPlannerOptions {
  /** Adds cosine similarity between sub-goal and tool text to the lexical scorer. */
  embedder?: Embedder | null;
  /** Declared and learned tool relations; an empty graph orders steps by the text alone. */
  graph?: ToolGraph;
  /** Fills arguments from each sub-goal's text; default: the schema-driven `fillArguments`. */
  fillArguments?: ArgumentFiller;
  /** A sub-goal whose best tool scores below this needs no tool. Defaults differ with and without an embedder. */
  minScore?: number;
  /** When a tool the graph often saw right before or after a chosen one is added to the plan. */
  companions?: Partial<CompanionOptions>;
  /** Cost of each pair of steps put against the task's own order. */
  inversionCost?: number;
  /** Candidates within this share of the best score compete on whether the sub-goal's text fills their required arguments. */
  schemaFitBand?: number;
  split?: SplitOptions;
  weights?: MatcherWeights;
  /** Zone for argument filling when the task names none. */
  timeZone?: string;
}

/** Tuned on UltraTool's non-test tasks (see the eval CLI): where a sub-goal stops needing a tool. */
const LEXICAL_MIN_SCORE = 0.05;
const SEMANTIC_MIN_SCORE = 0.3;

export interface CompanionOptions {
  /** Share of the chosen tool's observed runs that had the companion right next to it, below which it is never added. */
  minConfidence: number;
  /** Weight of the companion's own fit to the sub-goal (its score over the chosen tool's, at most 1). */
  fitWeight: number;
  /** Confidence plus weighted fit needed to add the companion. */
  threshold: number;
}

/** Candidates scoring at least this share of the best one's score may replace it when the text fills them and not it. */
export const DEFAULT_SCHEMA_FIT_BAND = 0.7;

/**
 * True when a fill gave every required field a value from the words (none missing, ambiguous or defaulted), or, for a schema
 * that requires nothing, at least one field: the step could run as the text states it.
 */
export function fillsCompletely(schema: JsonSchema, fill: FilledArguments): boolean {
  const required = requiredOf(schema);
  if (required.length === 0) return Object.keys(fill.arguments).length > 0;
  const unsure = new Set([...[...(fill.missing ?? []), ...(fill.ambiguous ?? [])].map((f) => f.path.replace(/^\//, '')), ...(fill.defaulted ?? [])]);
  const first = { ...fill.arguments, ...fill.each?.[0] };
  return required.every((field) => first[field] !== undefined && !unsure.has(field));
}

/** Tuned on UltraTool dev (companions on both sides). */
export const DEFAULT_COMPANIONS: CompanionOptions = { minConfidence: 0.4, fitWeight: 0.3, threshold: 0.6 };
const DEFAULT_INVERSION_COST = 0.3;
/** Plans remembered for replan (their sub-goals and the tools already tried); the oldest are forgotten. */
const REMEMBERED_PLANS = 1024;

/** Whose plan it is and the tool graph its plans use (the platform's plus what this tenant's runs taught). */
interface PlanScope {
  tenant: string;
  graph: ToolGraph;
}

/** Plan ids are content hashes: two tenants asking alike share one, so what is remembered for replan is kept per tenant. */
const memoryKey = (tenant: string, planId: string) => `${tenant}\n${planId}`;

/** One step before linking: which sub-goal it serves and with which candidate. */
interface Draft {
  id: string;
  subGoal: string;
  /** The parts after this one of the sentence it was split from ("the median and the variance of 3, 4, 5"): they may complete it. */
  following?: string[];
  /** The parts before it ("Find an overview of the Battle of Waterloo and the signing of the Treaty"): their words may complete it too. */
  preceding?: string[];
  /** The sub-goals this step serves when several chose its tool, in text order. */
  parts?: { text: string; repeats: boolean; position: number }[];
  position: number;
  candidate: PlanningCandidate;
  reason: string;
  alternatives: ToolMatch[];
  /** How sure the choice of this tool is (plan.confidence). */
  confidence: number;
}

interface PlanMemory {
  task: TaskInput;
  drafts: Draft[];
  /** Tool ids that failed in this plan's history: never proposed again. */
  failed: Set<string>;
}

const stepTool = (c: PlanningCandidate) => `${c.id}@${c.version}`;

const requiredOf = (schema: JsonSchema): string[] => (Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);

/** A field's own schema in an object schema, if it declares one. */
const propertyOf = (schema: JsonSchema | undefined, field: string): { type?: unknown; description?: unknown } | undefined =>
  (schema?.properties as Record<string, { type?: unknown; description?: unknown }> | undefined)?.[field];

const propertyDescription = (schema: JsonSchema, field: string): string | undefined => {
  const description = propertyOf(schema, field)?.description;
  return typeof description === 'string' ? description : undefined;
};

const fieldTakesList = (schema: JsonSchema, field: string): boolean => propertyOf(schema, field)?.type === 'array';

/** Field kinds whose values have a shape of their own: reading one is evidence the text is about the tool. */
const TYPED_KINDS = new Set<SchemaField['kind']>(['currency', 'unit', 'date', 'zone', 'email', 'url', 'path']);

/** The calls made so far for each earlier draft: its step and the steps copied from it for a list's items. */
const callsOf = (steps: PlanStep[], drafts: Draft[]) => drafts.map((d) => steps.filter((s) => s.id === d.id || s.id.startsWith(`${d.id}_`)).map((s) => s.arguments));

const quote = (text: string, max = 80) => `"${text.length > max ? `${text.slice(0, max - 1)}…` : text}"`;

/**
 * The planner that needs no model: splits the task into sub-goals, picks the best candidate for each
 * (lexical, plus cosine with an embedder), adds steps the tool graph says usually come first, orders and
 * links steps by the graph and by output→input schema fields, and fills arguments. No randomness: the
 * same task and candidates give the same plan, ids included.
 */
export class DeterministicPlanner extends Planner {
  readonly kind = 'deterministic';
  private readonly matcher: ToolMatcher;
  private readonly wordMatcher: ToolMatcher;
  private readonly graph: ToolGraph;
  private readonly minScore: number;
  private readonly memory = new Map<string, PlanMemory>();

  constructor(private readonly options: DeterministicPlannerOptions = {}) {
    super();
    this.matcher = new ToolMatcher(options.embedder ?? null, options.weights ?? DEFAULT_MATCHER_WEIGHTS);
    this.wordMatcher = options.embedder ? new ToolMatcher(null, options.weights ?? DEFAULT_MATCHER_WEIGHTS) : this.matcher;
    this.graph = options.graph ?? new ToolGraph();
    this.minScore = options.minScore ?? (options.embedder ? SEMANTIC_MIN_SCORE : LEXICAL_MIN_SCORE);
  }

  async select(task: TaskInput, candidates: PlanningCandidate[], principal: PlanningPrincipal): Promise<Selection> {
    const plan = await this.plan(task, candidates, principal);
    const calls: ToolCall[] = plan.steps.map((step) => ({
      tool: step.tool,
      arguments: Object.fromEntries(Object.entries(step.arguments).filter(([, value]) => !isBinding(value))),
      reason: step.reason,
    }));
    const { decision, question, missing, explanation, confidence, planner } = plan;
    return { decision, question, missing, explanation, confidence, planner, candidates: this.confine(candidates), calls };
  }

  async plan(task: TaskInput, candidates: PlanningCandidate[], principal: PlanningPrincipal): Promise<Plan> {
    return { ...(await this.planned(task, candidates, principal)), planner: this.kind };
  }

  private async planned(task: TaskInput, candidates: PlanningCandidate[], principal: PlanningPrincipal): Promise<Plan> {
    // What other tenants' runs taught never shapes this tenant's plan (issue 10).
    const scope: PlanScope = { tenant: principal.tenant, graph: this.graph.forTenant(principal.tenant) };
    const text = typeof task?.text === 'string' ? task.text.trim() : '';
    if (text === '') throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, 'the task is empty: give the text of what should be done', [{ path: '/text', message: 'empty' }]);
    const pool = this.confine(candidates);
    const id = planId({ text, toolChoice: task.toolChoice ?? 'AUTO', referenceTime: task.referenceTime, timeZone: task.timeZone, candidates: pool.map(stepTool) });
    const choice = task.toolChoice ?? 'AUTO';

    // A model could answer without a tool: the deterministic planner cannot.
    if (choice === 'NONE') return { id, decision: 'NO_MATCH', steps: [], confidence: UNABLE, explanation: 'toolChoice is NONE and the deterministic planner cannot answer without a tool' };
    if (pool.length === 0) return { id, decision: 'NO_MATCH', steps: [], confidence: CERTAIN, explanation: 'no candidate tools were given for this task' };

    const split = splitSubGoals(text, this.options.split ?? DEFAULT_SPLIT);
    const { ignored, truncated } = split;
    const subGoals = await this.splitByTools(split.subGoals, pool);
    const notes: string[] = [];
    if (ignored.length > 0) notes.push(`treated as data, not as goals: ${ignored.map((i) => `${quote(i.text, 60)} (${i.why})`).join(', ')}`);
    if (truncated) notes.push(`the task is long: only its first ${subGoals.length} sub-goals (of at most ${(this.options.split ?? DEFAULT_SPLIT).maxChars} characters) were planned`);

    if (typeof choice === 'object') {
      const forced = pool.find((c) => c.id === choice.tool || stepTool(c) === choice.tool);
      if (!forced)
        return { id, decision: 'NO_MATCH', steps: [], confidence: CERTAIN, explanation: `toolChoice names "${choice.tool}", which is not among the candidate tools for this caller; it is not used` };
      const [matches] = await this.matcher.rank([text], [forced]);
      const draft: Draft = { id: 's1', subGoal: text, position: 0, candidate: forced, reason: `toolChoice names ${forced.id}`, alternatives: matches, confidence: CERTAIN };
      return this.finish(scope, id, task, [draft], notes);
    }

    const ranked = await this.matcher.rank(
      subGoals.map((g) => g.text),
      pool,
    );
    const drafts = await this.chooseTools(subGoals, ranked, notes, this.fillContext(task));
    if (drafts.length === 0 && choice === 'REQUIRED') {
      const best = ranked.map((matches, g) => ({ match: matches[0], g })).sort((a, b) => b.match.score - a.match.score || a.g - b.g)[0];
      if (best && best.match.score > 0)
        drafts.push({
          id: 's1',
          subGoal: subGoals[best.g].text,
          position: best.g,
          candidate: best.match.candidate,
          reason: `toolChoice REQUIRED: the best fit for ${quote(subGoals[best.g].text)} (score ${best.match.score.toFixed(2)})`,
          alternatives: ranked[best.g],
          confidence: matchConfidence(best.match, ranked[best.g], this.minScore, false),
        });
    }
    if (subGoals.length === 0) return { id, decision: 'NO_MATCH', steps: [], confidence: UNDECIDED, explanation: ['nothing in the task asks for work a tool could do', ...notes].join('. ') };
    if (drafts.length === 0) {
      const closest = ranked.flatMap((m) => m.slice(0, 1)).sort((a, b) => b.score - a.score)[0];
      const hint = closest
        ? `; the closest was ${closest.candidate.id} at ${closest.score.toFixed(2)}${closest.score < this.minScore ? ` (needs ${this.minScore})` : ', but the text never names it or what it works on'}`
        : '';
      const named = closest !== undefined && namesTheTool(text, closest.candidate, true);
      return {
        id,
        decision: 'NO_MATCH',
        steps: [],
        confidence: noMatchConfidence(closest?.score, this.minScore, named),
        explanation: [`no candidate tool fits any part of the task${hint}`, ...notes].join('. '),
      };
    }
    this.addCompanions(scope.graph, drafts, pool, notes);
    const ordered = orderSteps(
      drafts.map((d) => ({ ...d, tool: d.candidate.id })),
      scope.graph,
      this.options.inversionCost ?? DEFAULT_INVERSION_COST,
    ).map((d, i) => ({ ...d, id: `s${i + 1}` }));
    return this.finish(scope, id, task, ordered, notes);
  }

  async replan(plan: Plan, feedback: ReplanFeedback): Promise<Plan> {
    return { ...(await this.replanned(plan, feedback)), planner: this.kind };
  }

  private async replanned(plan: Plan, feedback: ReplanFeedback): Promise<Plan> {
    const failedStep = plan.steps.find((s) => s.id === feedback.failedStep);
    if (!failedStep) throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `step "${feedback.failedStep}" is not in plan ${plan.id}`, [{ path: '/failedStep', message: 'unknown step' }]);
    const pool = this.confine(feedback.candidates);
    const { tenant } = feedback.principal;
    const scope: PlanScope = { tenant, graph: this.graph.forTenant(tenant) };
    const remembered = this.memory.get(memoryKey(tenant, plan.id));
    const failed = new Set([...(remembered?.failed ?? []), toolKey(failedStep.tool)]);
    const id = planId({ after: plan.id, failedStep: failedStep.id, failed: [...failed].sort(), attempt: feedback.attempt });
    const drafts: Draft[] =
      remembered?.drafts ??
      plan.steps.flatMap((step, i): Draft[] => {
        const candidate = pool.find((c) => c.id === toolKey(step.tool));
        return candidate ? [{ id: step.id, subGoal: feedback.task.text, position: i, candidate, reason: step.reason, alternatives: [], confidence: plan.confidence ?? UNDECIDED }] : [];
      });
    const broken = drafts.find((d) => d.id === failedStep.id);
    const subGoal = broken?.subGoal ?? feedback.task.text;
    const alternatives = broken?.alternatives.length ? broken.alternatives : (await this.matcher.rank([subGoal], pool))[0];
    const inPlan = new Set(drafts.filter((d) => d.id !== failedStep.id).map((d) => d.candidate.id));
    const usable = new Set(pool.map((c) => c.id));
    const next = alternatives.find((m) => usable.has(m.candidate.id) && !failed.has(m.candidate.id) && !inPlan.has(m.candidate.id) && m.score >= this.minScore);
    if (!next) {
      return {
        id,
        decision: 'NO_MATCH',
        steps: [],
        confidence: UNDECIDED,
        explanation: `step ${failedStep.id} (${failedStep.tool}) failed with ${feedback.error.code}: ${feedback.error.message}; no other candidate fits ${quote(subGoal)} (already tried: ${[...failed].sort().join(', ')})`,
      };
    }
    const repaired = drafts.map((d) =>
      d.id === failedStep.id
        ? {
            ...d,
            candidate: next.candidate,
            reason: `replaces ${failedStep.tool} (failed: ${feedback.error.code}) for ${quote(subGoal)} (score ${next.score.toFixed(2)})`,
            alternatives,
            confidence: replacementConfidence(next, alternatives, this.minScore),
          }
        : d,
    );
    const completed = new Set(Object.keys(feedback.completed));
    const rebuilt = await this.finish(scope, id, feedback.task, repaired, [`replanned after ${failedStep.id} failed: ${feedback.error.message}`], failed);
    // Completed steps already ran: they stay exactly as they were.
    rebuilt.steps = rebuilt.steps.map((step) => (completed.has(step.id) ? (plan.steps.find((s) => s.id === step.id) ?? step) : step));
    return rebuilt;
  }

  /** Candidates sorted and de-duplicated by id (best rank kept): the planner's result never depends on their order. */
  private confine(candidates: PlanningCandidate[]): PlanningCandidate[] {
    const best = new Map<string, PlanningCandidate>();
    for (const c of candidates ?? []) {
      const seen = best.get(c.id);
      if (!seen || c.rank < seen.rank || (c.rank === seen.rank && c.version < seen.version)) best.set(c.id, c);
    }
    return [...best.values()].sort((a, b) => a.rank - b.rank || a.id.localeCompare(b.id));
  }

  /**
   * "the GCD of 96 and 128, and the LCM of 15 and 25": one sentence, two jobs. A sub-goal whose
   * coordinated parts each name a different tool (a word of its name, or clearly by meaning) becomes one
   * sub-goal per tool; parts that name none ("96 and 128") stay with the part before them.
   */
  private async splitByTools(subGoals: SubGoal[], pool: PlanningCandidate[]): Promise<SubGoal[]> {
    const split = await Promise.all(subGoals.map((goal) => this.partsByName(goal.text, pool)));
    // Only the parts no tool's name settles are embedded, all in one call, and with them each sub-goal as written (most
    // stay whole and are ranked next): each text embedded is most of a plan's time, and one call for all of them is cheaper.
    const unsettled = split.flatMap((s) => s?.unsettled.map((i) => s.parts[i].text) ?? []);
    const meant = new Map<string, ToolMatch[]>();
    if (this.options.embedder && unsettled.length > 0) {
      // One model call embeds them all; the ranking below and the sub-goals' own find their vectors cached.
      await this.matcher.warm([...unsettled, ...subGoals.map((g) => g.text)], pool);
      const scores = await this.matcher.rank(unsettled, pool);
      for (const [k, text] of unsettled.entries()) meant.set(text, scores[k]);
    }
    const clearly = (text: string) => {
      const [first, second] = meant.get(text) ?? [];
      return first && first.score >= CLEAR_PART_FIT * this.minScore && (!second || first.score >= CLEAR_PART_LEAD * second.score) ? first.candidate.id : undefined;
    };
    const out: { text: string; following?: string[]; preceding?: string[] }[] = [];
    for (const [g, goal] of subGoals.entries()) {
      const analysed = split[g];
      if (!analysed) {
        out.push({ text: goal.text });
        continue;
      }
      const { parts, isContext, byName } = analysed;
      const settled = parts.map((part, i) => (isContext[i] ? undefined : (byName[i] ?? clearly(part.text))));
      // "the monarchs of France …, major wars in England … and the art movements in Italy …": beside parts that name
      // their tools, a part whose best fit is another tool, over the usual bar and clearly ahead of those, is that tool's.
      const named = new Set(settled.filter((id): id is string => id !== undefined));
      const besideNamed = (text: string) => {
        const [first, second] = meant.get(text) ?? [];
        if (named.size === 0 || !first || first.score < this.minScore || named.has(first.candidate.id) || first.matchedTerms.length === 0 || !opensWithNounPhrase(text) || !saysWhich(text))
          return undefined;
        return !second || first.score >= CLEAR_PART_LEAD * second.score ? first.candidate.id : undefined;
      };
      const groups: { tool: string; start: number; end: number }[] = [];
      parts.forEach((part, i) => {
        const named = isContext[i] ? undefined : (settled[i] ?? besideNamed(part.text));
        const current = groups.at(-1);
        if (current && (!named || named === current.tool)) current.end = part.end;
        else groups.push({ tool: named ?? '', start: part.start, end: part.end });
      });
      // Context before the first job is that job's.
      if (groups.length > 1 && groups[0].tool === '') groups.splice(0, 2, { ...groups[1], start: groups[0].start });
      // A tool may come back ("a 5-day air quality forecast for X, a weather forecast for Y and a 2-day air quality
      // forecast for Z"): its parts become one step with a call each.
      if (groups.length < 2 || groups.some((g) => g.tool === '')) out.push({ text: goal.text });
      else {
        const texts = groups.map((g) => goal.text.slice(g.start, g.end).trim());
        out.push(...texts.map((text, i) => ({ text, following: texts.slice(i + 1), preceding: texts.slice(0, i) })));
      }
    }
    return out.map((goal, index) => ({ index, ...goal }));
  }

  /**
   * A sub-goal's coordinated parts, which are context, which name a tool by a word of its name, and which only
   * meaning could settle; nothing for a sub-goal of one part.
   */
  private async partsByName(text: string, pool: PlanningCandidate[]) {
    const parts = coordinatedParts(text);
    if (parts.length < 2) return undefined;
    // Words decide here (a part names its tool or not), so the parts are ranked without embedding them.
    const ranked = await this.wordMatcher.rank(
      parts.map((p) => p.text),
      pool,
    );
    // A sentence or a part that asks for nothing ("My confirmation number is X.", "the weather was clear") is context, whatever tool word it holds;
    // one that opens with a word of a tool's own name ("Invest $2000 in Google" for investment.invest) asks for it.
    const isContext = parts.map((part, i) => {
      const opening = part.text.trim().split(/\s+/)[0] ?? '';
      return (part.sentence || statesAFact(part.text)) && !isAction(part.text) && !ranked[i].some((m) => m.score > 0 && namesByName(opening, m.candidate));
    });
    const byName = parts.map((part, i) => {
      const top = ranked[i][0];
      return isContext[i] || !top || top.score <= 0 || !namesByName(part.text, top.candidate) ? undefined : top.candidate.id;
    });
    // Or, with an embedder, a part whose best fit is clearly one tool ("major wars in England during the 18th
    // century" for an events tool): twice the usual bar, and 15% ahead of the next.
    const unsettled = parts.map((_, i) => i).filter((i) => !isContext[i] && byName[i] === undefined);
    return { parts, isContext, byName, unsettled };
  }

  private async chooseTools(subGoals: SubGoal[], ranked: ToolMatch[][], notes: string[], context: ArgumentFillContext): Promise<Draft[]> {
    const drafts: Draft[] = [];
    const idle: { text: string; position: number }[] = [];
    for (const [g, goal] of subGoals.entries()) {
      // "… of Buddhism, and then do the same for Hinduism": the step before, asked again with what this part changes.
      const previous = drafts.at(-1);
      if (previous && asksAgain(goal.text)) {
        addPart(previous, { text: goal.text, repeats: true, position: g });
        continue;
      }
      // No default score alone decides: a close score for a tool the text never names is no match, a low one
      // for a tool it names is a match. A minScore the operator set is a floor all the same.
      // In a task of several jobs, a close fit the retrieval funnel also ranks among the top ones for the task is evidence too.
      const funnelAgrees = (top: ToolMatch | undefined) => subGoals.length > 1 && top !== undefined && top.score >= this.minScore && top.candidate.rank <= subGoals.length;
      const names = (top: ToolMatch | undefined) => top !== undefined && namesTheTool(goal.text, top.candidate, top.score >= this.minScore);
      // In a task of one job, a best candidate without that evidence gives way to a close one the text names
      // (in a task of several, a part that needs no tool is common, and a named neighbour would be a wrong step).
      if (subGoals.length === 1 && !names(ranked[g][0])) ranked[g] = this.namedFirst(goal.text, ranked[g]);
      if (subGoals.length === 1) ranked[g] = actionFirst(goal.text, ranked[g]);
      const top = ranked[g][0];
      const named = names(top);
      if (
        !top ||
        (this.options.minScore !== undefined && top.score < this.minScore) ||
        !(funnelAgrees(top) || named || (await this.fillsTyped(goal.text, top, context)) || (subGoals.length === 1 && (await this.fillsFromWords(goal.text, top, context, top.score < this.minScore))))
      ) {
        idle.push({ text: goal.text, position: g });
        continue;
      }
      const { match: fillable, note } = await this.preferFillable(goal.text, ranked[g], context, new Set(drafts.map((d) => d.candidate.id)));
      if (note) notes.push(note);
      const best = this.funnelBacked(fillable, ranked[g], subGoals.length, drafts, saysWholeName(goal.text, fillable.candidate), notes);
      const same = drafts.find((d) => d.candidate.id === best.candidate.id);
      if (same) {
        addPart(same, { text: goal.text, repeats: true, position: g });
        continue;
      }
      const evidence = best.matchedTerms.length > 0 ? `, matched ${best.matchedTerms.slice(0, 5).join(' ')}` : '';
      drafts.push({
        id: `s${drafts.length + 1}`,
        subGoal: goal.text,
        following: goal.following,
        preceding: goal.preceding,
        position: g,
        candidate: best.candidate,
        reason: `best fit for ${quote(goal.text)} (score ${best.score.toFixed(2)}${evidence})`,
        alternatives: ranked[g],
        confidence: matchConfidence(best, ranked[g], this.minScore, named),
      });
    }
    if (drafts.length > 0 && idle.length > 0) notes.push(`no tool needed for ${idle.map((t) => quote(t.text, 50)).join(', ')}`);
    // "Who discovered the neutron? Give me detail information.", "… And can you do the same for a sample size of 150?":
    // a part that needs no tool of its own says more about the step before it, or asks for it again with a change.
    for (const part of idle) {
      const owner = [...drafts].reverse().find((d) => d.position < part.position) ?? drafts[0];
      if (!owner) continue;
      // Only one that says it asks again ("the same but …", "… instead") may be a call of its own.
      addPart(owner, { text: part.text, repeats: ASKS_AGAIN.test(part.text), position: Math.max(part.position, owner.position) });
    }
    // A part that adds to a call adds to the one written just before it ("… in 25 seconds and give it in km/h. Also … in m/s");
    // context written before every call adds to the first.
    for (const draft of drafts) draft.parts?.sort((a, b) => a.position - b.position);
    return drafts;
  }

  /**
   * In a task of several jobs, a sub-goal's words alone are a poor query ("check what is available"): a best fit
   * the retrieval funnel ranks far down for the task as a whole, and whose whole name the text does not say, gives
   * way to the funnel's best-ranked candidate not chosen yet that still fits the sub-goal somewhat.
   */
  private funnelBacked(best: ToolMatch, matches: ToolMatch[], jobs: number, drafts: Draft[], named: boolean, notes: string[]): ToolMatch {
    const reach = Math.max(FUNNEL_REACH, jobs + 1);
    if (jobs < 2 || named || best.candidate.rank <= reach) return best;
    const chosen = new Set(drafts.map((d) => d.candidate.id));
    const backed = matches.filter((m) => m.candidate.rank <= reach && !chosen.has(m.candidate.id) && m.score >= FUNNEL_FIT_SHARE * best.score).sort((a, b) => a.candidate.rank - b.candidate.rank)[0];
    if (!backed) return best;
    notes.push(
      `for the sub-goal that fit ${best.candidate.id} best (ranked ${best.candidate.rank} for the whole task) chose ${backed.candidate.id}, which the retrieval funnel ranks ${backed.candidate.rank}`,
    );
    return backed;
  }

  /**
   * The text gives every one of the tool's (two or more) required arguments as a value of its own kind
   * — an amount with its currency or unit, a currency, a unit, a date, a zone, an address — none from
   * free words, and not amounts only: "I have 100 euro. How much is it in USD?" is a currency conversion's job whatever the
   * tool is called. Names and places do not count: any tool that takes a city is "filled" by one.
   */
  private async fillsTyped(text: string, match: ToolMatch, context: ArgumentFillContext): Promise<boolean> {
    const schema = match.candidate.descriptor.inputSchema;
    const required = schemaFields(schema).filter((f) => f.required);
    // Amounts alone say little (any finance tool takes two): one value at least must be of a shaped kind.
    if (required.length < 2 || !required.every((f) => TYPED_KINDS.has(f.kind) || f.kind === 'number') || !required.some((f) => TYPED_KINDS.has(f.kind))) return false;
    const fill = await (this.options.fillArguments ?? fillArguments)(text, schema, context);
    const evidence = fill.evidence ?? {};
    return fillsCompletely(schema, fill) && !fill.guessed?.length && required.every((f) => f.kind !== 'number' || /\p{L}|[$€£¥₹%°]/u.test(evidence[f.name] ?? ''));
  }

  /**
   * A request of one job that fits the tool at the usual bar and says every value the tool requires, each in words
   * that point at its field, is for that tool though it never names it: "switch my order from pizza to a BURGER" for
   * ChaFod(TheFod: PIZZA|BURGER|…), "Electropop songs released in 2019" for Music_3_LookupMusic. Guessed and default
   * values do not count; a tool that requires nothing needs one value said. A request that asks for something the
   * tool never speaks of is still not for it.
   */
  private async fillsFromWords(text: string, match: ToolMatch, context: ArgumentFillContext, loose: boolean): Promise<boolean> {
    if (asksForSomethingElse(text, match.candidate)) return false;
    const schema = match.candidate.descriptor.inputSchema;
    const required = requiredOf(schema);
    // Below the usual bar the words must speak the tool's own terms: a required value said beside its field's name.
    if (loose && required.length === 0) return false;
    const fill = await (this.options.fillArguments ?? fillArguments)(text, schema, context);
    if (!fillsCompletely(schema, fill) || fill.guessed?.length) return false;
    return !loose || required.some((field) => saidAtItsName(text, field, fill.evidence?.[field]));
  }

  /**
   * The first candidate the text names, moved first: the best one is not named, so without it the goal
   * would have no tool, and a named tool is taken at any score above the floor, as when it ranks first
   * ("calculate 17 * 23" is the calculator's job, not that of a date tool the wording sits closer to).
   */
  private namedFirst(text: string, matches: ToolMatch[]): ToolMatch[] {
    const named = matches.slice(1).find((m) => m.score >= this.minScore && namesTheTool(text, m.candidate, true));
    return named ? [named, ...matches.filter((m) => m !== named)] : matches;
  }

  /**
   * When the best candidate for a sub-goal cannot run on what its text says (a required argument is
   * missing or ambiguous), prefers the best-scoring candidate that fits about as well and that the
   * text fills completely: "3 kg to pounds" fills a unit conversion, not a currency one that would
   * still lack its source currency. A contender without required arguments counts as filled when the
   * text gives at least one of its arguments.
   */
  private async preferFillable(text: string, matches: ToolMatch[], context: ArgumentFillContext, chosen: Set<string>): Promise<{ match: ToolMatch; note?: string }> {
    const band = this.options.schemaFitBand ?? DEFAULT_SCHEMA_FIT_BAND;
    const [best, ...rest] = matches;
    // A tool an earlier sub-goal already chose is no contender: this sub-goal would vanish into that step.
    const contenders = rest.filter((m) => m.score >= this.minScore && m.score >= best.score * band && !chosen.has(m.candidate.id));
    // A best tool that requires nothing can always run: nothing to prefer over it (and no filling to pay for).
    if (contenders.length === 0 || requiredOf(best.candidate.descriptor.inputSchema).length === 0) return { match: best };
    const fill = this.options.fillArguments ?? fillArguments;
    const filled = async (m: ToolMatch) => fillsCompletely(m.candidate.descriptor.inputSchema, await fill(text, m.candidate.descriptor.inputSchema, context));
    if (await filled(best)) return { match: best };
    for (const match of contenders) {
      if (await filled(match))
        return { match, note: `for ${quote(text, 50)} chose ${match.candidate.id} over ${best.candidate.id}: the text gives every required argument of the former, not of the latter` };
    }
    return { match: best };
  }

  private fillContext(task: TaskInput): ArgumentFillContext {
    const referenceTime = task.referenceTime ? new Date(task.referenceTime) : new Date();
    if (Number.isNaN(referenceTime.getTime()))
      throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `referenceTime "${task.referenceTime}" is not an ISO-8601 instant`, [{ path: '/referenceTime', message: 'invalid date' }]);
    return { referenceTime, timeZone: task.timeZone ?? this.options.timeZone ?? 'UTC', images: task.images };
  }

  /**
   * Adds, only from the candidates, a tool that observed runs often had right before (or after) a chosen
   * one: a search before a booking, a status query after a request. The graph's confidence and the
   * tool's own fit to the sub-goal (relative to the chosen tool's) add up; at most one on each side.
   */
  private addCompanions(graph: ToolGraph, drafts: Draft[], pool: PlanningCandidate[], notes: string[]): void {
    const { minConfidence, fitWeight, threshold } = { ...DEFAULT_COMPANIONS, ...this.options.companions };
    const chosen = new Set(drafts.map((d) => d.candidate.id));
    for (const draft of [...drafts]) {
      const best = draft.alternatives.find((m) => m.candidate.id === draft.candidate.id)?.score ?? 0;
      const fit = (tool: string) => {
        const score = draft.alternatives.find((m) => m.candidate.id === tool)?.score ?? 0;
        return best > 0 ? Math.min(1, Math.max(0, score / best)) : 0;
      };
      const sides = [
        { side: 'before', offset: -0.5, related: graph.predecessors(draft.candidate.id, minConfidence) },
        { side: 'after', offset: 0.25, related: graph.successors(draft.candidate.id, minConfidence) },
      ] as const;
      for (const { side, offset, related } of sides) {
        const usable = (tool: string) => !chosen.has(tool) && pool.some((c) => c.id === tool);
        const observed = related
          .filter((r) => usable(r.tool))
          .map((r) => ({ ...r, evidence: r.confidence + fitWeight * fit(r.tool) }))
          .filter((r) => r.evidence >= threshold)
          .sort((a, b) => b.evidence - a.evidence || a.tool.localeCompare(b.tool))[0];
        // A tool no run has taught anything yet: a neighbour its plugin or dataset declares, if the sub-goal's
        // words fit it nearly as well as the chosen tool.
        const declared =
          observed || graph.seen(draft.candidate.id)
            ? undefined
            : graph
                .declaredNeighbours(draft.candidate.id, side)
                .filter((tool) => usable(tool) && fit(tool) >= DECLARED_NEIGHBOUR_FIT)
                .sort((a, b) => fit(b) - fit(a) || a.localeCompare(b))[0];
        const tool = observed?.tool ?? declared;
        if (!tool) continue;
        const candidate = pool.find((c) => c.id === tool) as PlanningCandidate;
        chosen.add(candidate.id);
        drafts.push({
          id: `s${drafts.length + 1}`,
          subGoal: draft.subGoal,
          position: draft.position + offset,
          candidate,
          reason: observed
            ? `runs of ${draft.candidate.id} had ${candidate.id} right ${side} it in ${Math.round(100 * observed.confidence)}% of cases (${observed.support} observed)`
            : `${candidate.id} is declared to run right ${side} ${draft.candidate.id}, and ${quote(draft.subGoal)} fits it ${Math.round(100 * fit(tool))}% as well`,
          alternatives: [],
          confidence: Math.min(1, observed ? observed.evidence : DECLARED_STRENGTH + fitWeight * fit(tool)),
        });
        notes.push(`added ${candidate.id} ${side} ${draft.candidate.id} (tool graph)`);
      }
    }
  }

  /** Links, fills and checks the ordered drafts, and remembers them for replan. */
  private async finish(scope: PlanScope, id: string, task: TaskInput, drafts: Draft[], notes: string[], failed = new Set<string>()): Promise<Plan> {
    const steps: PlanStep[] = [];
    const missing: MissingArgument[] = [];
    const context = this.fillContext(task);
    const linksOf = drafts.map((draft, j) =>
      linkBySchema(
        draft.candidate.descriptor.inputSchema,
        drafts.slice(0, j).map((d) => ({ id: d.id, outputSchema: d.candidate.descriptor.outputSchema })),
        new Set(),
      ),
    );
    const consumed = new Set(linksOf.flatMap((links) => links.map((l) => l.fromStep)));
    /** Drafts the text gives none of the required values for, and of those the ones it fits only weakly. */
    const givesNothing: Draft[] = [];
    /** Per draft, the fields it guessed or took a default for: no later step takes those as said. */
    const unstated = new Map<string, Set<string>>();
    const unasked: Draft[] = [];
    for (const [j, draft] of drafts.entries()) {
      const descriptor = draft.candidate.descriptor;
      const links = linksOf[j];
      const bound: Record<string, unknown> = Object.fromEntries(links.map((l) => [l.input, bindingTo(l.fromStep, l.outputPath)]));
      const fill = this.options.fillArguments ?? fillArguments;
      const fillContext = { ...context, given: bound, tool: { name: descriptor.name, description: descriptor.description } };
      const result = (await this.fillByParts(draft, fillContext)) ?? (await fill(draft.subGoal, descriptor.inputSchema, fillContext));
      const { arguments: filled, each } = result;
      let guessed = result.guessed ?? [];
      // A stated default holds only where nothing the words say gives the field.
      let defaulted = result.defaulted ?? [];
      for (const [field, value] of Object.entries(await this.sharedComplement(draft, { ...filled, ...each?.[0], ...bound }, [...guessed, ...defaulted], fillContext))) {
        filled[field] = value;
        guessed = guessed.filter((g) => g !== field);
        defaulted = defaulted.filter((d) => d !== field);
        notes.push(`${field} of ${draft.candidate.id} read from the words it is coordinated with (${quote(draft.subGoal, 40)} is completed by the words around it)`);
      }
      // A listed value ("for 5, 10 and 15") is one call per item, unless a later step reads this one's output.
      let copies: (Record<string, unknown> | undefined)[] = each && each.length > 1 && !consumed.has(draft.id) ? each : [undefined];
      // What the words refer back to ("for the same duration", "in these years") comes from the earlier steps,
      // before any guess from the words left over.
      for (const field of requiredOf(descriptor.inputSchema)) {
        const given = { ...filled, ...copies[0], ...bound }[field];
        if (given !== undefined && !guessed.includes(field) && !defaulted.includes(field)) continue;
        const earlier = callsOf(steps, drafts.slice(0, j));
        const options = {
          before: drafts
            .slice(0, j)
            .map((d) => d.subGoal)
            .join(' '),
          list: fieldTakesList(descriptor.inputSchema, field),
        };
        let carried = carriedOver(draft.subGoal, field, earlier, options);
        let why = 'refers back to it';
        if (carried.length === 0 && (given === undefined || guessed.includes(field))) {
          // Only what an earlier step was told, not what it guessed or defaulted, stands in for words left unsaid.
          const told = drafts.slice(0, j).map((d, i) => earlier[i].map((args) => Object.fromEntries(Object.entries(args).filter(([name]) => !unstated.get(d.id)?.has(name)))));
          carried = carriedOver(draft.subGoal, field, told, { ...options, unsaid: true });
          why = 'leaves it unsaid';
        }
        if (carried.length === 0) continue;
        notes.push(`${field} of ${draft.candidate.id} carried over from an earlier step (${quote(draft.subGoal, 40)} ${why})`);
        guessed = guessed.filter((g) => g !== field);
        defaulted = defaulted.filter((d) => d !== field);
        delete filled[field];
        copies = carried.length > 1 && copies.length === 1 && !consumed.has(draft.id) ? carried.map((value) => ({ ...copies[0], [field]: value })) : copies.map((c) => ({ ...c, [field]: carried[0] }));
      }
      // "the time difference between the two cities": a family of fields (city_1, city_2) takes what an earlier step was run for.
      for (const family of copies.length === 1 ? fieldFamilies(requiredOf(descriptor.inputSchema)) : []) {
        const now = { ...filled, ...copies[0], ...bound };
        if (family.some((field) => now[field] !== undefined && !guessed.includes(field))) continue;
        const grouped = groupCarriedOver(draft.subGoal, family, callsOf(steps, drafts.slice(0, j)));
        if (!grouped) continue;
        Object.assign(filled, grouped);
        guessed = guessed.filter((g) => !family.includes(g));
        notes.push(`${family.join(', ')} of ${draft.candidate.id} are what an earlier step was run for (${quote(draft.subGoal, 40)} speaks of them together)`);
      }
      unstated.set(draft.id, new Set([...guessed, ...defaulted]));
      if (guessed.length > 0) {
        // Words that do not point at the field are a guess (about half right on BFCL's simple set): under the auto planner's default threshold, so a model checks it.
        draft.confidence *= GUESS_CONFIDENCE;
        notes.push(
          `${guessed.join(', ')} of ${draft.candidate.id} taken from the words the request has left over (${guessed.map((g) => quote(String(filled[g] ?? each?.[0]?.[g] ?? ''), 40)).join(', ')})`,
        );
      }
      const args: Record<string, unknown> = { ...filled, ...copies[0], ...bound };
      const required = requiredOf(descriptor.inputSchema);
      const fromText = required.filter((field) => ({ ...filled, ...copies[0] })[field] !== undefined && !guessed.includes(field) && !defaulted.includes(field));
      if (required.length > 0 && fromText.length === 0 && bound[required[0]] === undefined) {
        givesNothing.push(draft);
        if (this.fitsWeakly(draft)) unasked.push(draft);
      }
      const dependsOn = new Set(links.map((l) => l.fromStep));
      // The graph links a step to the nearest earlier step it is known to follow.
      for (let i = j - 1; i >= 0; i--) {
        if (scope.graph.hasEdge(drafts[i].candidate.id, draft.candidate.id)) {
          dependsOn.add(drafts[i].id);
          break;
        }
      }
      for (const field of requiredOf(descriptor.inputSchema)) {
        if (args[field] === undefined) missing.push({ step: draft.id, tool: stepTool(draft.candidate), path: `/${field}`, description: propertyDescription(descriptor.inputSchema, field) });
      }
      const after = drafts
        .slice(0, j)
        .map((d) => d.id)
        .filter((s) => dependsOn.has(s));
      steps.push({ id: draft.id, tool: stepTool(draft.candidate), arguments: args, dependsOn: after, reason: draft.reason });
      copies.slice(1).forEach((values, k) => {
        steps.push({
          id: `${draft.id}_${k + 2}`,
          tool: stepTool(draft.candidate),
          arguments: { ...filled, ...values, ...bound },
          dependsOn: after,
          reason: `${draft.reason} (item ${k + 2} of ${copies.length})`,
        });
      });
    }
    this.remember(memoryKey(scope.tenant, id), { task, drafts, failed });
    const explanation = notes.length > 0 ? notes.join('. ') : undefined;
    // A tool the text neither gives a value for nor asks for by more than a loose fit is not what it
    // asks for ("Who discovered electricity?" against a current calculator): no question about its inputs.
    if (missing.length > 0 && (task.toolChoice ?? 'AUTO') === 'AUTO' && unasked.length === drafts.length) {
      const weakest = unasked.map((d) => `${d.candidate.id} (fit ${this.scoreOf(d).toFixed(2)}, needs ${(UNASKED_FIT * this.minScore).toFixed(2)} when the text gives none of its values)`);
      return {
        id,
        decision: 'NO_MATCH',
        steps: [],
        confidence: UNDECIDED,
        explanation: [`the text gives none of the values its closest tools need and fits them only loosely: ${weakest.join(', ')}`, ...notes].join('. '),
      };
    }
    // "How do I find the angle of the force?", "the field at distance 'r' from a wire carrying current 'I'": a
    // question about how something is done, or one whose values are symbols, asks for an explanation, not a call.
    const howTo = HOW_TO.test(task.text) && givesNothing.length === drafts.length;
    const symbolic = SYMBOLIC.test(task.text) && !/\d/.test(task.text) && missing.every((m) => numericField(drafts.find((d) => d.id === m.step)?.candidate.descriptor.inputSchema, m.path.slice(1)));
    if (missing.length > 0 && (task.toolChoice ?? 'AUTO') === 'AUTO' && (howTo || symbolic)) {
      return {
        id,
        decision: 'NO_MATCH',
        steps: [],
        confidence: UNDECIDED,
        explanation: [
          howTo ? 'the text asks how something is done and gives none of the values a tool would need' : 'the values the text gives are symbols, not values: it asks for a formula, not a calculation',
          ...notes,
        ].join('. '),
      };
    }
    if (missing.length > 0) {
      const fields = missing.map((m) => `${m.path.slice(1)}${m.description ? ` (${m.description})` : ''} for ${m.tool}`);
      return {
        id,
        decision: 'CLARIFY',
        question: `Please tell me: ${fields.join('; ')}.`,
        steps,
        missing,
        explanation,
        confidence: planConfidence(
          drafts.map((d) => d.confidence),
          'CLARIFY',
        ),
      };
    }
    return {
      id,
      decision: 'USE_TOOLS',
      steps,
      explanation,
      confidence: planConfidence(
        drafts.map((d) => d.confidence),
        'USE_TOOLS',
      ),
    };
  }

  /**
   * "Determine the median and variance for 3, 4, 5": the words after the last part of a coordination belong to
   * every part. A required field this step's own words leave open (or only guess, or default) takes the value its text
   * gives together with the parts after it, nearest first, unless that reading is unsure or a guess too.
   */
  private async sharedComplement(draft: Draft, args: Record<string, unknown>, guessed: string[], context: ArgumentFillContext): Promise<Record<string, unknown>> {
    const schema = draft.candidate.descriptor.inputSchema;
    let open = requiredOf(schema).filter((field) => args[field] === undefined || guessed.includes(field));
    const found: Record<string, unknown> = {};
    const fill = this.options.fillArguments ?? fillArguments;
    // Nearest words first: the parts after it ("the median" and "the variance of 3, 4, 5"), then the ones before
    // it ("Find an overview of the Battle of Waterloo" and "the signing of the Treaty").
    const before = draft.preceding ?? [];
    const readings = [
      ...(draft.following ?? []).map((_, n) => [draft.subGoal, ...(draft.following ?? []).slice(0, n + 1)].join(' and ')),
      ...before.map((_, n) => [...before.slice(before.length - 1 - n), draft.subGoal].join(' and ')),
    ];
    for (const words of readings) {
      if (open.length === 0) break;
      const joined = await fill(words, schema, context);
      const unsure = new Set([...(joined.guessed ?? []), ...(joined.defaulted ?? []), ...(joined.ambiguous ?? []).map((a) => a.path.slice(1))]);
      for (const field of open) if (joined.arguments[field] !== undefined && !unsure.has(field) && joined.each === undefined) found[field] = joined.arguments[field];
      open = open.filter((field) => !(field in found));
    }
    return found;
  }

  /**
   * For a step several sub-goals chose: one call per sub-goal when they give its tool different values (see
   * `spreadParts`), or the reading of their words as one when that says more; undefined for a step of one sub-goal.
   */
  private async fillByParts(draft: Draft, context: ArgumentFillContext): Promise<FilledArguments | undefined> {
    if (!draft.parts || draft.parts.length < 2) return undefined;
    const schema = draft.candidate.descriptor.inputSchema;
    const fill = this.options.fillArguments ?? fillArguments;
    const fills = await Promise.all(
      draft.parts.map(async (part) => ({
        ...(await fill(part.text, schema, context)),
        repeats: part.repeats,
        asksTheSame: ASKS_THE_SAME.test(part.text),
      })),
    );
    const byParts = spreadParts(fills, requiredOf(schema));
    // The words read as one may say more than the parts do ("from my home in Oslo … back to my home", a sentence
    // that speaks of the record before it): the one reading wins when it is complete and has every call the parts
    // have, each with every field the parts' call gives its own value (one value copied to every call is no call's own).
    const whole = await fill(draft.subGoal, schema, context);
    // Without calls of the parts' own, the one reading is the step's fill (the caller would read it again).
    if ((whole.missing ?? []).length > 0 || (whole.ambiguous ?? []).length > 0 || !whole.each || whole.each.length < 2) return byParts ?? whole;
    if (!byParts?.each) return whole;
    const partCalls = byParts.each;
    const wholeCalls = whole.each.map((item) => ({ ...whole.arguments, ...item }));
    const copied = (name: string) => partCalls.every((call) => JSON.stringify(call[name]) === JSON.stringify(partCalls[0][name]));
    const saysAsMuch = partCalls.every((call, k) => k < wholeCalls.length && Object.keys(call).every((name) => wholeCalls[k][name] !== undefined || copied(name)));
    return saysAsMuch && wholeCalls.length >= partCalls.length ? whole : byParts;
  }

  /** The matcher's score of the draft's own tool for its sub-goal (0 when it was not ranked, e.g. added from the graph). */
  private scoreOf(draft: Draft): number {
    return draft.alternatives.find((m) => m.candidate.id === draft.candidate.id)?.score ?? 0;
  }

  /** Chosen by a fit below UNASKED_FIT times the usual bar, and the text does not say the tool's whole name. */
  private fitsWeakly(draft: Draft): boolean {
    return draft.alternatives.length > 0 && this.scoreOf(draft) < UNASKED_FIT * this.minScore && !saysWholeName(draft.subGoal, draft.candidate);
  }

  private remember(id: string, memory: PlanMemory): void {
    this.memory.delete(id);
    this.memory.set(id, memory);
    if (this.memory.size > REMEMBERED_PLANS) this.memory.delete(this.memory.keys().next().value as string);
  }
}

/** How close (as a share of the best score) a tool whose action the request says must fit to go before one whose action it does not. */
const ACTION_BAND = 0.8;

/**
 * "Can you play me Remind Me by Carrie Underwood? Pop music is my jam." for Music_3_LookupMusic and Music_3_PlayMedia:
 * sibling tools differ in what they do, and the request says which. In a one-job request, a close candidate whose
 * name's action the text says goes before a best one whose action it does not.
 */
export function actionFirst(text: string, matches: ToolMatch[]): ToolMatch[] {
  const [best] = matches;
  if (!best || best.score <= 0) return matches;
  const said = saysAction(text, best.candidate);
  if (said !== false) return matches;
  const contender = matches.slice(1).find((m) => m.score >= ACTION_BAND * best.score && saysAction(text, m.candidate) === true);
  return contender ? [contender, ...matches.filter((m) => m !== contender)] : matches;
}

/** Adds a sub-goal's words to a step: the step keeps its own words as its first part, and reads all of them as one text too. */
function addPart(draft: Draft, part: NonNullable<Draft['parts']>[number]): void {
  draft.parts = [...(draft.parts ?? [{ text: draft.subGoal, repeats: true, position: draft.position }]), part];
  draft.subGoal = `${draft.subGoal}; ${part.text}`;
}

/**
 * How well (as a share of the chosen tool's fit) a sub-goal must fit a declared neighbour of a tool no run has
 * taught anything, for the neighbour to join the plan; and what a declared edge alone is worth (as in ToolGraph.weight).
 * Chosen on UltraTool's dev split with `--no-learn` (0.8-0.9 all gain; learned runs never use it).
 */
const DECLARED_NEIGHBOUR_FIT = 0.85;
const DECLARED_STRENGTH = 0.5;

/**
 * A tool the text gives no value for must fit by this many times the usual bar to be asked about:
 * with nothing filled, the fit is the only evidence that the request is for it.
 */
const UNASKED_FIT = 1.5;

/**
 * How far down the funnel's ranking for the whole task a sub-goal's best fit may be before the funnel's own pick
 * replaces it, and how well (as a share of the best fit) that pick must still fit the sub-goal. Chosen on
 * UltraTool's dev split (`eval plan --split dev`), with and without learned examples.
 */
const FUNNEL_REACH = 3;
const FUNNEL_FIT_SHARE = 0.2;

/** Words that cannot open a noun phrase: a part opening with one qualifies or asks, it names no thing of its own. */
const NOT_A_NOUN_PHRASE = new Set(
  'for with without at in on from to by of into about including include includes and or but so as if which that who whose where when what how why i im id we you he she it they my our your their is are was were be been can could would will should shall may might must do does did has have had please also then just only'.split(
    ' ',
  ),
);
/**
 * "major wars in England …", "the art movements in Italy …": a part that opens with a common noun phrase, not a
 * preposition, a verb, a participle ("having a rating of 4"), a pronoun or a value (a name, a date, a number).
 */
const opensWithNounPhrase = (text: string): boolean => {
  const written = text.trim().split(/\s+/)[0] ?? '';
  const first = written.toLowerCase();
  return /^[a-z]+$/.test(written) && !/(?:ing|ed)$/.test(first) && !NOT_A_NOUN_PHRASE.has(first) && !isAction(text);
};
/** A part that says which thing it is about (a name or a number after its first word): "major wars in England during the 18th century", not "hard seat". */
const saysWhich = (text: string): boolean => /\s(?:\p{Lu}|\d)/u.test(text.trim());
/** How clearly (times the usual bar, and ahead of the next tool) a coordinated part must fit a tool it does not name to be a job of its own. Chosen on BFCL parallel-multiple and UltraTool dev. */
const CLEAR_PART_FIT = 2;
const CLEAR_PART_LEAD = 1.15;

/** A question about how something is done ("How do I find …", "how to …"). */
const HOW_TO = /^\W*(?:how\s+(?:do|does|can|could|should|would|might)\s+(?:i|we|you|one|someone|people)\b|how\s+to\b)/i;
/** A quantity written as a symbol in quotes ('v', "t", 'theta'); it stands for a value only in a text that gives no number. */
const SYMBOLIC = /(['"‘“])(?:[A-Za-z]|theta|alpha|beta|gamma|delta|omega|lambda|phi|sigma|mu|rho|tau)(['"’”])/i;

/** True when the field takes a number (what a symbol in the text stands for). */
function numericField(schema: JsonSchema | undefined, field: string): boolean {
  const type = propertyOf(schema, field)?.type;
  return type === 'number' || type === 'integer';
}

/** Words that say a part asks for a step again with a change. */
const ASKS_AGAIN = /\b(?:same|again|instead|similar|similarly|likewise|repeat|another|too)\b/i;
/** Words that ask the same thing for another value: "the same for Ecuador", "the same information but for …". */
const ASKS_THE_SAME = /\bthe same(?:\s+\w+)?\s+(?:for|but|in|with|at|on|about)\b/i;

/** What a guessed argument leaves of a step's confidence (plan.confidence). */
const GUESS_CONFIDENCE = 0.55;

const planId = (content: unknown) => `plan-${createHash('sha256').update(canonicalJson(content)).digest('hex').slice(0, 16)}`;
