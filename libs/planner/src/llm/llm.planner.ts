import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { measureGenAi } from '@toolgate/retrieval';
import { ErrorCode, type ErrorDetail, ToolgateError } from '@toolgate/sdk';
import OpenAI, { APIConnectionError, APIError } from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { Plan, PlanningCandidate, PlanningPrincipal, ReplanFeedback, Selection, TaskInput, TokenUsage, ToolCall } from '../plan/plan.types';
import type { PlannerModuleOptions } from '../planner.config';
import { Planner } from '../planning/planner.port';
import { CandidateTools, CLARIFY_FUNCTION } from './candidate.tools';
import { EndpointCapabilities, REPLY_FORMATS, type ReplyFormat, refusalOf } from './endpoint.capabilities';
import { type EndpointLabel, toToolgateError } from './llm.errors';
import { PLAN_FUNCTION, planRequest, repairMessage, replanContext, selectionRequest } from './llm.requests';
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
  private readonly capabilities: EndpointCapabilities;
  private readonly logger = new Logger('LlmPlanner');

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
    this.capabilities = new EndpointCapabilities(options.replyFormat === 'auto' ? undefined : options.replyFormat);
  }

  /** The principal is not sent: the candidates already are what it may discover. */
  async select(task: TaskInput, candidates: PlanningCandidate[], _principal?: PlanningPrincipal): Promise<Selection> {
    assertTask(task);
    const tools = new CandidateTools(candidates);
    const early = earlyDecision(task, tools);
    if (early) return { ...early, candidates, calls: [], confidence: 1, planner: this.kind };

    // An endpoint without tool calls still plans: the plan's independent steps are the calls.
    if (this.capabilities.formats(['tools']).length === 0) return this.selectByPlan(task, tools, candidates);
    const request = selectionRequest(task, tools, this.options.model);
    try {
      const settled = await this.converse<Omit<Selection, 'candidates'>>(
        ['tools'],
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
      return { ...settled.value, candidates, usage: settled.usage, confidence: confidenceOf(settled.usage), planner: this.kind };
    } catch (error) {
      if (this.capabilities.formats(['tools']).length === 0 && this.capabilities.formats().length > 0) return this.selectByPlan(task, tools, candidates);
      throw error;
    }
  }

  /** Selection through a plan reply: its steps that need no other step are the calls. */
  private async selectByPlan(task: TaskInput, tools: CandidateTools, candidates: PlanningCandidate[]): Promise<Selection> {
    const plan = await this.planWith(
      task,
      tools,
      [],
      REPLY_FORMATS.filter((format) => format !== 'tools'),
    );
    const calls = plan.steps.filter((step) => step.dependsOn.length === 0).map(({ tool, arguments: args, reason }) => ({ tool, arguments: args, reason }));
    const { decision, question, missing, explanation, usage, confidence, planner } = plan;
    return { decision, ...(question ? { question } : {}), ...(missing ? { missing } : {}), ...(explanation ? { explanation } : {}), usage, confidence, planner, candidates, calls };
  }

  async plan(task: TaskInput, candidates: PlanningCandidate[], _principal?: PlanningPrincipal): Promise<Plan> {
    assertTask(task);
    const tools = new CandidateTools(candidates);
    const early = earlyDecision(task, tools);
    if (early) return { id: randomUUID(), ...early, steps: [], confidence: 1, planner: this.kind };
    return this.planWith(task, tools, []);
  }

  async replan(plan: Plan, feedback: ReplanFeedback): Promise<Plan> {
    assertTask(feedback.task);
    const tools = new CandidateTools(feedback.candidates);
    const early = earlyDecision(feedback.task, tools);
    if (early) return { id: randomUUID(), ...early, steps: [], confidence: 1, planner: this.kind };
    return this.planWith(feedback.task, tools, replanContext(plan, feedback));
  }

  private async planWith(task: TaskInput, tools: CandidateTools, context: ChatCompletionMessageParam[], formats: readonly ReplyFormat[] = REPLY_FORMATS): Promise<Plan> {
    const settled = await this.converse<CheckedPlan>(
      formats,
      (repairs, format) => planRequest(task, tools, this.options.model, [...context, ...repairs], format),
      (reply) => {
        const message = reply.choices[0]?.message;
        if (message?.refusal) return { ok: true, value: { decision: 'NO_MATCH', explanation: `the model refused: ${message.refusal}`, steps: [] } };
        const cut = reply.choices[0]?.finish_reason === 'length' ? ' (the reply was cut off at the token limit)' : '';
        let parsed: unknown;
        try {
          parsed = JSON.parse(planText(reply));
        } catch (error) {
          return { ok: false, errors: [{ path: '', message: `the reply is not valid JSON${cut}: ${(error as Error).message}` }] };
        }
        return checkPlanReply(parsed, tools, task.toolChoice);
      },
      // A plan sent as a function call is shown back as text: the repair asks for the whole plan again.
      (reply, errors) => [
        { role: 'assistant', content: planText(reply) },
        { role: 'user', content: repairMessage(errors) },
      ],
    );
    return { id: randomUUID(), ...settled.value, usage: settled.usage, confidence: confidenceOf(settled.usage), planner: this.kind };
  }

  /**
   * Sends a request, checks the reply, and while rounds are left shows the model its errors.
   * `build` makes the request in a reply format from the repair messages so far; `followUp` turns a
   * rejected reply into more. What the rounds cost is logged, and named in the error when all fail.
   */
  private async converse<T>(
    formats: readonly ReplyFormat[],
    build: (repairs: ChatCompletionMessageParam[], format: ReplyFormat) => ChatCompletionCreateParamsNonStreaming,
    check: (reply: ChatCompletion) => Checked<T>,
    followUp: (reply: ChatCompletion, errors: ErrorDetail[]) => ChatCompletionMessageParam[],
  ): Promise<Settled<T>> {
    const usage: TokenUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0, requests: 0 };
    const repairs: ChatCompletionMessageParam[] = [];
    let errors: ErrorDetail[] = [];
    for (let round = 0; round <= this.options.repairRounds; round++) {
      const started = performance.now();
      let reply: ChatCompletion;
      let format: ReplyFormat;
      try {
        ({ reply, format } = await this.negotiate(formats, (chosen) => build(repairs, chosen)));
      } catch (error) {
        if (usage.requests > 0) this.logger.warn(`round ${round + 1} failed after ${spent(usage)}: ${(error as Error).message}`);
        throw error;
      }
      usage.requests += 1;
      usage.promptTokens += reply.usage?.prompt_tokens ?? 0;
      usage.completionTokens += reply.usage?.completion_tokens ?? 0;
      usage.totalTokens += reply.usage?.total_tokens ?? 0;
      const checked = check(reply);
      const took = `${Math.round(performance.now() - started)} ms`;
      const tokens = `${reply.usage?.prompt_tokens ?? '?'} prompt + ${reply.usage?.completion_tokens ?? '?'} completion tokens`;
      const outcome = checked.ok ? 'accepted' : `rejected (${checked.errors.length} problem(s), first ${checked.errors[0]?.path || '/'}: ${checked.errors[0]?.message})`;
      this.logger.log(`round ${round + 1} via ${format} on ${this.endpoint.baseURL} (${this.endpoint.model}): ${tokens}, ${took}, finish ${reply.choices[0]?.finish_reason ?? '?'}; ${outcome}`);
      if (checked.ok) return { value: checked.value, usage };
      errors = checked.errors;
      repairs.push(...followUp(reply, errors));
    }
    throw new ToolgateError(
      ErrorCode.INVALID_PLAN,
      `the model's reply was still invalid after ${this.options.repairRounds} repair round(s) (TOOLGATE_LLM_REPAIR_ROUNDS), ${spent(usage)}; nothing of it is used`,
      errors,
    );
  }

  /**
   * Sends the request in the first reply format the endpoint has not refused. A refusal (the
   * server naming the format or a parameter it lacks) is remembered, and the next format tried at
   * once; until a format has been answered once, its request goes without client retries, so a
   * refusal is not retried as if it were an outage.
   */
  private async negotiate(formats: readonly ReplyFormat[], build: (format: ReplyFormat) => ChatCompletionCreateParamsNonStreaming): Promise<{ reply: ChatCompletion; format: ReplyFormat }> {
    for (;;) {
      const format = this.capabilities.formats(formats)[0];
      if (!format) throw this.capabilities.noFormatLeft(this.endpoint.baseURL, formats);
      const body = build(format);
      const probe = this.capabilities.isProbe(format);
      let reply: ChatCompletion;
      try {
        reply = await this.send(body, probe ? 0 : this.options.maxRetries);
      } catch (error) {
        const refusal = refusalOf(error, format, this.capabilities.sends('max_tokens'));
        if (refusal) {
          this.logger.warn(`${this.endpoint.baseURL} refused ${refusal.kind === 'format' ? `reply format ${refusal.format}` : `parameter ${refusal.parameter}`}: ${refusal.message}`);
          this.capabilities.refuse(refusal);
          continue;
        }
        // Anything else in a probe takes the retries it was spared.
        if (!probe || this.options.maxRetries === 0 || !isRetryable(error)) throw toToolgateError(error, this.endpoint, false);
        reply = await this.send(body, this.options.maxRetries - 1).catch((again: unknown) => {
          throw toToolgateError(again, this.endpoint, false);
        });
      }
      this.capabilities.accept(format);
      return { reply, format };
    }
  }

  /**
   * Refuses a request whose prompt alone would exceed the token budget (counted as the endpoint
   * counts, once it has reported usage); the rest of the budget, up to the reply cap, bounds the reply.
   */
  private async send(body: ChatCompletionCreateParamsNonStreaming, maxRetries: number): Promise<ChatCompletion> {
    const estimate = promptTokens(body);
    const prompt = this.capabilities.calibrated(estimate);
    if (prompt >= this.options.maxTokens) {
      throw new ToolgateError(ErrorCode.BUDGET_EXCEEDED, `the planning request needs about ${prompt} prompt tokens, over the budget of ${this.options.maxTokens} (TOOLGATE_LLM_MAX_TOKENS)`, [
        { path: 'TOOLGATE_LLM_MAX_TOKENS', message: `${prompt} prompt tokens >= ${this.options.maxTokens}` },
      ]);
    }
    const cap = Math.min(this.options.maxReplyTokens, this.options.maxTokens - prompt);
    // Both names: OpenAI's reasoning models take only max_completion_tokens, most other servers only max_tokens.
    const limits = { max_completion_tokens: cap, ...(this.capabilities.sends('max_tokens') ? { max_tokens: cap } : {}) };
    // The budget covers the whole request, client retries and their waits included.
    const deadline = AbortSignal.timeout(this.options.timeoutMs);
    try {
      const reply = await measureGenAi({ operation: 'chat', model: body.model, purpose: 'plan' }, () => this.client.chat.completions.create({ ...body, ...limits }, { signal: deadline, maxRetries }));
      this.capabilities.observePromptTokens(estimate, reply.usage?.prompt_tokens);
      return reply;
    } catch (error) {
      if (deadline.aborted) throw toToolgateError(error, this.endpoint, true);
      throw error;
    }
  }
}

/** The text of a plan reply: the content, or the arguments of the plan function when it came as a call. */
function planText(reply: ChatCompletion): string {
  const message = reply.choices[0]?.message;
  const call = (message?.tool_calls ?? []).find((c) => c.type === 'function' && c.function.name === PLAN_FUNCTION);
  return call && call.type === 'function' ? call.function.arguments : (message?.content ?? '');
}

/** A model's reply that passed every check at once is surer than one that needed repairs. */
const confidenceOf = (usage: TokenUsage) => Math.max(0.5, 0.9 - 0.2 * (usage.requests - 1));

const spent = (usage: TokenUsage) => `${usage.requests} request(s), ${usage.promptTokens} prompt + ${usage.completionTokens} completion tokens spent`;

/** What the client itself would retry: a dropped connection, 408/409/429 and 5xx. */
function isRetryable(error: unknown): boolean {
  if (error instanceof APIConnectionError) return true;
  return error instanceof APIError && error.status !== undefined && (error.status === 408 || error.status === 409 || error.status === 429 || error.status >= 500);
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
