import { randomUUID } from 'node:crypto';
import { measureGenAi } from '@toolgate/retrieval';
import { ErrorCode, type ErrorDetail, ToolgateError } from '@toolgate/sdk';
import OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { Plan, PlanningCandidate, PlanningPrincipal, ReplanFeedback, Selection, TaskInput, TokenUsage, ToolCall } from '../plan/plan.types';
import type { PlannerModuleOptions } from '../planner.config';
import { Planner } from '../planning/planner.port';
import { CandidateTools, CLARIFY_FUNCTION } from './candidate.tools';
import { type EndpointLabel, toToolgateError } from './llm.errors';
import { planRequest, repairMessage, replanContext, selectionRequest } from './llm.requests';
import { type Checked, type CheckedPlan, checkArguments, checkPlanReply, parseArgumentObject, resolveTool, unknownToolMessage } from './plan-reply.parser';
import { promptTokens } from './prompt-tokens.counter';
import { dropNullOptionals } from './strict-schema.converter';

export type LlmPlannerOptions = PlannerModuleOptions['llm'];

const OPENAI_URL = 'https://api.openai.com/v1';

/** One answer of the model that passed every check, with what it cost. */
interface Settled<T> {
  value: T;
  usage: TokenUsage;
}

/**
 * Plans through any OpenAI-compatible chat-completions endpoint. The model sees only the candidates
 * it is given and only proposes: every reply is checked against the candidates and their original
 * schemas, shown its own errors for a bounded number of rounds, and refused as INVALID_PLAN after.
 */
export class LlmPlanner extends Planner {
  readonly kind = 'llm';
  private readonly client: OpenAI;
  private readonly endpoint: EndpointLabel;

  constructor(private readonly options: LlmPlannerOptions) {
    super();
    if (!options.apiKey && !options.baseURL) {
      throw new ToolgateError(ErrorCode.INVALID_CONFIG, 'the LLM planner needs OPENAI_API_KEY for api.openai.com, or OPENAI_BASE_URL for a local OpenAI-compatible server', [
        { path: 'OPENAI_API_KEY', message: 'is not set' },
      ]);
    }
    this.client = new OpenAI({
      // Local servers (vLLM, Ollama, llama.cpp) take no key, but the client insists on one.
      apiKey: options.apiKey ?? 'no-key',
      baseURL: options.baseURL ?? OPENAI_URL,
      timeout: options.timeoutMs,
      maxRetries: options.maxRetries,
    });
    this.endpoint = { baseURL: options.baseURL ?? OPENAI_URL, model: options.model, timeoutMs: options.timeoutMs, maxRetries: options.maxRetries };
  }

  /** The principal is not sent: the candidates already are what it may discover. */
  async select(task: TaskInput, candidates: PlanningCandidate[], _principal?: PlanningPrincipal): Promise<Selection> {
    assertTask(task);
    const tools = new CandidateTools(candidates);
    const early = earlyDecision(task, tools);
    if (early) return { ...early, candidates, calls: [] };

    const request = selectionRequest(task, tools, this.options.model);
    const settled = await this.converse<Omit<Selection, 'candidates'>>(
      (repairs) => ({ ...request, messages: [...request.messages, ...repairs] }),
      (reply) => {
        const message = reply.choices[0]?.message;
        const calls = (message?.tool_calls ?? []).filter((call) => call.type === 'function');
        if (calls.length === 0) {
          if (task.toolChoice === 'REQUIRED') return { ok: false, errors: [{ path: '/tool_calls', message: 'this task must use a tool: call one (or ask_user for a missing value)' }] };
          return { ok: true, value: { decision: 'ANSWER_DIRECTLY', explanation: message?.content ?? message?.refusal ?? '', calls: [] } };
        }
        return checkToolCalls(calls, tools);
      },
      (reply, errors) => {
        const message = reply.choices[0]?.message;
        const calls = message?.tool_calls ?? [];
        if (!message || calls.length === 0) return [{ role: 'user', content: repairMessage(errors) }];
        // Every tool call must be answered by a tool message; each one carries its own errors.
        return [
          { role: 'assistant', content: message.content, tool_calls: calls },
          ...calls.map((call, i) => {
            const own = errors.filter((error) => error.path === `/tool_calls/${i}` || error.path.startsWith(`/tool_calls/${i}/`));
            return { role: 'tool' as const, tool_call_id: call.id, content: own.length > 0 ? repairMessage(own) : 'Not run: other calls of this set were rejected. Send the whole set again.' };
          }),
        ];
      },
    );
    return { ...settled.value, candidates, usage: settled.usage };
  }

  async plan(task: TaskInput, candidates: PlanningCandidate[], _principal?: PlanningPrincipal): Promise<Plan> {
    assertTask(task);
    const tools = new CandidateTools(candidates);
    const early = earlyDecision(task, tools);
    if (early) return { id: randomUUID(), ...early, steps: [] };
    return this.planWith(task, tools, []);
  }

  async replan(plan: Plan, feedback: ReplanFeedback): Promise<Plan> {
    assertTask(feedback.task);
    const tools = new CandidateTools(feedback.candidates);
    const early = earlyDecision(feedback.task, tools);
    if (early) return { id: randomUUID(), ...early, steps: [] };
    return this.planWith(feedback.task, tools, replanContext(plan, feedback));
  }

  private async planWith(task: TaskInput, tools: CandidateTools, context: ChatCompletionMessageParam[]): Promise<Plan> {
    const settled = await this.converse<CheckedPlan>(
      (repairs) => planRequest(task, tools, this.options.model, [...context, ...repairs]),
      (reply) => {
        const message = reply.choices[0]?.message;
        if (message?.refusal) return { ok: true, value: { decision: 'NO_MATCH', explanation: `the model refused: ${message.refusal}`, steps: [] } };
        const cut = reply.choices[0]?.finish_reason === 'length' ? ' (the reply was cut off at the token limit)' : '';
        let parsed: unknown;
        try {
          parsed = JSON.parse(message?.content ?? '');
        } catch (error) {
          return { ok: false, errors: [{ path: '', message: `the reply is not valid JSON${cut}: ${(error as Error).message}` }] };
        }
        return checkPlanReply(parsed, tools, task.toolChoice);
      },
      (reply, errors) => [
        { role: 'assistant', content: reply.choices[0]?.message?.content ?? '' },
        { role: 'user', content: repairMessage(errors) },
      ],
    );
    return { id: randomUUID(), ...settled.value, usage: settled.usage };
  }

  /**
   * Sends a request, checks the reply, and while rounds are left shows the model its errors.
   * `build` makes the request from the repair messages so far; `followUp` turns a rejected reply into more.
   */
  private async converse<T>(
    build: (repairs: ChatCompletionMessageParam[]) => ChatCompletionCreateParamsNonStreaming,
    check: (reply: ChatCompletion) => Checked<T>,
    followUp: (reply: ChatCompletion, errors: ErrorDetail[]) => ChatCompletionMessageParam[],
  ): Promise<Settled<T>> {
    const usage: TokenUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0, requests: 0 };
    const repairs: ChatCompletionMessageParam[] = [];
    let errors: ErrorDetail[] = [];
    for (let round = 0; round <= this.options.repairRounds; round++) {
      const reply = await this.send(build(repairs));
      usage.requests += 1;
      usage.promptTokens += reply.usage?.prompt_tokens ?? 0;
      usage.completionTokens += reply.usage?.completion_tokens ?? 0;
      usage.totalTokens += reply.usage?.total_tokens ?? 0;
      const checked = check(reply);
      if (checked.ok) return { value: checked.value, usage };
      errors = checked.errors;
      repairs.push(...followUp(reply, errors));
    }
    throw new ToolgateError(
      ErrorCode.INVALID_PLAN,
      `the model's reply was still invalid after ${this.options.repairRounds} repair round(s) (TOOLGATE_LLM_REPAIR_ROUNDS); nothing of it is used`,
      errors,
    );
  }

  /** Refuses a request whose prompt alone would exceed the token budget; the rest of the budget caps the reply. */
  private async send(body: ChatCompletionCreateParamsNonStreaming): Promise<ChatCompletion> {
    const prompt = promptTokens(body);
    if (prompt >= this.options.maxTokens) {
      throw new ToolgateError(ErrorCode.BUDGET_EXCEEDED, `the planning request needs about ${prompt} prompt tokens, over the budget of ${this.options.maxTokens} (TOOLGATE_LLM_MAX_TOKENS)`, [
        { path: 'TOOLGATE_LLM_MAX_TOKENS', message: `${prompt} prompt tokens >= ${this.options.maxTokens}` },
      ]);
    }
    // The budget covers the whole request, client retries and their waits included.
    const deadline = AbortSignal.timeout(this.options.timeoutMs);
    try {
      return await measureGenAi({ operation: 'chat', model: body.model, purpose: 'plan' }, () =>
        this.client.chat.completions.create({ ...body, max_completion_tokens: this.options.maxTokens - prompt }, { signal: deadline }),
      );
    } catch (error) {
      throw toToolgateError(error, this.endpoint, deadline.aborted);
    }
  }
}

function assertTask(task: TaskInput): void {
  if (!task.text?.trim() && (task.images ?? []).length === 0) {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, 'the task is empty: give its text or an image', [{ path: '/text', message: 'must not be empty' }]);
  }
}

/** Decisions that need no model: nothing to choose from, or a chosen tool that is not a candidate (never granted). */
function earlyDecision(task: TaskInput, tools: CandidateTools): Pick<Plan, 'decision' | 'explanation'> | null {
  if (typeof task.toolChoice === 'object' && !tools.find(task.toolChoice.tool)) {
    // Worded like a tool that does not exist: a caller learns nothing about tools it may not see.
    return { decision: 'NO_MATCH', explanation: `the chosen tool "${task.toolChoice.tool}" is not among the tools available for this task` };
  }
  if (tools.all.length === 0) return { decision: 'NO_MATCH', explanation: 'no available tool matches the task' };
  return null;
}

type FunctionCall = { id: string; function: { name: string; arguments: string } };

/** Parallel calls of one reply: ask_user makes it CLARIFY; otherwise every call must name a candidate with valid arguments. */
function checkToolCalls(calls: FunctionCall[], tools: CandidateTools): Checked<Omit<Selection, 'candidates'>> {
  const errors: ErrorDetail[] = [];
  const accepted: ToolCall[] = [];
  const clarify = calls.findIndex((call) => call.function.name === CLARIFY_FUNCTION);
  if (clarify >= 0) {
    const args = parseArgumentObject(calls[clarify].function.arguments, `/tool_calls/${clarify}/arguments`);
    const question = args.ok && typeof args.value.question === 'string' ? args.value.question.trim() : '';
    if (!question) return { ok: false, errors: args.ok ? [{ path: `/tool_calls/${clarify}/arguments/question`, message: 'must be the question for the user' }] : args.errors };
    const missing = Array.isArray(args.ok && args.value.missing) ? (args.ok ? (args.value.missing as { tool?: unknown; field?: unknown }[]) : []) : [];
    return {
      ok: true,
      value: {
        decision: 'CLARIFY',
        question,
        missing: missing
          .filter((item) => typeof item?.tool === 'string' && typeof item.field === 'string')
          .map((item) => ({ tool: resolveTool(tools, item.tool as string)?.ref ?? (item.tool as string), path: `/${(item.field as string).replace(/^\//, '')}` })),
        calls: [],
      },
    };
  }
  calls.forEach((call, i) => {
    const at = `/tool_calls/${i}`;
    const tool = resolveTool(tools, call.function.name);
    if (!tool) {
      errors.push({ path: `${at}/function/name`, message: `"${call.function.name}" ${unknownToolMessage(tools)}` });
      return;
    }
    const args = parseArgumentObject(call.function.arguments, `${at}/arguments`);
    if (!args.ok) {
      errors.push(...args.errors);
      return;
    }
    const value = (tool.strict ? dropNullOptionals(tool.candidate.descriptor.inputSchema, args.value) : args.value) as Record<string, unknown>;
    const problems = checkArguments(tool, value, `${at}/arguments`);
    errors.push(...problems);
    if (problems.length === 0) accepted.push({ tool: tool.ref, arguments: value, reason: `proposed by the model for ${tool.candidate.id}` });
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: { decision: 'USE_TOOLS', calls: accepted } };
}
