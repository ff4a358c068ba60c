import { Inject, Injectable } from '@nestjs/common';
import { trace } from '@opentelemetry/api';
import { HealthMonitor } from '@toolgate/executor';
import {
  emptySession,
  followUpOf,
  ImageDescriber,
  type ImageDescription,
  PLANNER_OPTIONS,
  type Plan,
  Planner,
  type PlannerModuleOptions,
  type PlanningCandidate,
  planFollowUp,
  recordTurn,
  type Selection,
  type SessionState,
  type SessionTurn,
  sessionFrom,
  type TaskInput,
} from '@toolgate/planner';
import { AccessPolicyService, CatalogService, type Principal, SessionStoreService } from '@toolgate/registry';
import { ToolRetriever } from '@toolgate/retrieval';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';

const isTimeZone = (zone: string): boolean => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
};

/** Longest task text accepted; longer work is bounded by the planner, not refused, up to this. */
export const MAX_TASK_CHARS = 20_000;

export interface PlanTaskResult<T> {
  result: T;
  candidates: PlanningCandidate[];
  images: ImageDescription[];
}

const tracer = trace.getTracer('toolgate.planner');

/**
 * Task → candidates the caller may discover → selection or plan. Images become text first; a
 * session's previous turn answers elliptical follow-ups ("and in EUR?"). The planner only proposes:
 * nothing runs here.
 */
@Injectable()
export class PlanTaskUseCase {
  constructor(
    private readonly retriever: ToolRetriever,
    private readonly catalog: CatalogService,
    private readonly access: AccessPolicyService,
    private readonly sessions: SessionStoreService,
    private readonly planner: Planner,
    private readonly describer: ImageDescriber,
    @Inject(PLANNER_OPTIONS) private readonly options: PlannerModuleOptions,
    private readonly health: HealthMonitor,
  ) {}

  async select(task: TaskInput, principal: Principal): Promise<PlanTaskResult<Selection>> {
    return this.run('select', task, principal, (input, candidates, previous) => {
      const followUp = previous && this.followUp(input, previous, candidates);
      return followUp ? Promise.resolve({ ...followUp.selection, candidates }) : this.planner.select(input, candidates, principal);
    });
  }

  async plan(task: TaskInput, principal: Principal): Promise<PlanTaskResult<Plan>> {
    return this.run('plan', task, principal, (input, candidates, previous) => {
      const followUp = previous && this.followUp(input, previous, candidates);
      return followUp ? Promise.resolve(followUp.plan) : this.planner.plan(input, candidates, principal);
    });
  }

  private async run<T extends Plan | Selection>(
    kind: 'select' | 'plan',
    task: TaskInput,
    principal: Principal,
    decide: (task: TaskInput, candidates: PlanningCandidate[], previous: SessionTurn | null) => Promise<T>,
  ): Promise<PlanTaskResult<T>> {
    return tracer.startActiveSpan(`toolgate.${kind}`, async (span) => {
      try {
        this.check(task);
        const images = task.images.length > 0 ? await this.describer.describe(task.images) : [];
        const imageText = images
          .map((d) => d.text.trim())
          .filter(Boolean)
          .join('\n');
        const text = imageText ? `${task.text}\n${imageText}` : task.text;
        const input: TaskInput = { ...task, text, timeZone: task.timeZone ?? this.options.timeZone };
        const session = await this.loadSession(task, principal);
        const previous = followUpOf(task.text, session);
        const candidates = await this.candidates(input, previous, principal);
        const result = await decide(input, candidates, previous);
        span.setAttributes({ 'toolgate.planner': this.planner.kind, 'toolgate.candidates': candidates.length, 'toolgate.decision': result.decision, 'toolgate.images': images.length });
        if (task.sessionId) await this.saveSession(task, session, result, principal);
        return { result, candidates, images };
      } finally {
        span.end();
      }
    });
  }

  private check(task: TaskInput): void {
    if (task.text.trim() === '' && task.images.length === 0) {
      throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, 'the task is empty: give text or an image', [{ path: '/text', message: 'must not be empty' }]);
    }
    if (task.timeZone !== undefined && !isTimeZone(task.timeZone)) {
      throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `unknown time zone "${task.timeZone}"`, [{ path: '/timeZone', message: 'must be an IANA time zone, e.g. Europe/Berlin' }]);
    }
    if (task.referenceTime !== undefined && Number.isNaN(Date.parse(task.referenceTime))) {
      throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `referenceTime "${task.referenceTime}" is not a date-time`, [{ path: '/referenceTime', message: 'must be an ISO-8601 date-time' }]);
    }
    if (task.text.length > MAX_TASK_CHARS) {
      throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `the task has ${task.text.length} characters; at most ${MAX_TASK_CHARS} are accepted`, [
        { path: '/text', message: `longer than ${MAX_TASK_CHARS} characters` },
      ]);
    }
  }

  /**
   * The funnel's top candidates within what the principal may discover, plus a tool the caller named
   * in toolChoice or used in the previous turn when it may still discover it (never otherwise).
   */
  private async candidates(task: TaskInput, previous: SessionTurn | null, principal: Principal): Promise<PlanningCandidate[]> {
    // Unhealthy versions are never candidates: ask for as many more as there are, then drop them.
    const unhealthy = this.health.snapshot().filter((verdict) => !verdict.healthy).length;
    const { hits } = await this.retriever.search(task.text, this.options.candidates + unhealthy, { scope: this.access.discoveryScope(principal) });
    const candidates: PlanningCandidate[] = [];
    const add = (ref: string, score: number) => {
      try {
        const { tool, version } = this.catalog.resolve(ref, principal);
        if (candidates.some((c) => c.id === tool.id) || !this.health.isHealthy(tool.id, version.version)) return;
        candidates.push({ id: tool.id, version: version.version, descriptor: version.descriptor, score, rank: candidates.length + 1 });
      } catch (error) {
        // A hit the catalog no longer shows (drift), or a named tool the caller may not see: not a candidate.
        if (!(error instanceof ToolgateError)) throw error;
      }
    };
    for (const hit of hits) if (candidates.length < this.options.candidates) add(hit.id, hit.fused);
    const choice = task.toolChoice;
    if (choice && typeof choice === 'object') add(choice.tool, 0);
    for (const call of previous?.calls ?? []) add(call.tool, 0);
    return candidates;
  }

  private followUp(task: TaskInput, previous: SessionTurn, candidates: PlanningCandidate[]) {
    return planFollowUp(task.text, previous, candidates, { referenceTime: task.referenceTime ? new Date(task.referenceTime) : new Date(), timeZone: task.timeZone ?? this.options.timeZone });
  }

  private async loadSession(task: TaskInput, principal: Principal): Promise<SessionState> {
    if (!task.sessionId) return emptySession();
    return sessionFrom(await this.sessions.load(principal, task.sessionId));
  }

  private async saveSession(task: TaskInput, session: SessionState, result: Plan | Selection, principal: Principal): Promise<void> {
    const calls = 'steps' in result ? result.steps : result.calls;
    const turn = { text: task.text, decision: result.decision, calls: calls.map((c) => ({ tool: c.tool, arguments: c.arguments })), at: new Date().toISOString() };
    await this.sessions.save(principal, task.sessionId as string, recordTurn(session, turn));
  }
}
