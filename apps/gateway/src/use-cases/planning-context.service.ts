import { Inject, Injectable } from '@nestjs/common';
import { trace } from '@opentelemetry/api';
import {
  checkTaskInput,
  emptySession,
  followUpOf,
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
import { type Principal, SessionStoreService } from '@toolgate/registry';
import { CandidateFinder } from './candidate-finder.service';
import { TaskUnderstanding } from './task-understanding.service';

export interface PlanTaskResult<T> {
  result: T;
  candidates: PlanningCandidate[];
  images: ImageDescription[];
}

/** What a decision is made from. */
export interface PlanningInput {
  /** The task with its images as text and the default time zone filled in. */
  task: TaskInput;
  candidates: PlanningCandidate[];
  /** The session's previous turn re-planned for an elliptical follow-up ("and in EUR?"), when the task is one. */
  followUp: ReturnType<typeof planFollowUp>;
}

const tracer = trace.getTracer('toolgate.planner');

/**
 * What selection and planning share around the planner's decision: the task checked and understood,
 * candidates the caller may discover, the session (loaded before, the turn recorded after) and its
 * follow-ups. Nothing runs here.
 */
@Injectable()
export class PlanningContext {
  constructor(
    private readonly finder: CandidateFinder,
    private readonly understanding: TaskUnderstanding,
    private readonly sessions: SessionStoreService,
    private readonly planner: Planner,
    @Inject(PLANNER_OPTIONS) private readonly options: PlannerModuleOptions,
  ) {}

  decide<T extends Plan | Selection>(kind: 'select' | 'plan', task: TaskInput, principal: Principal, decide: (input: PlanningInput) => Promise<T>): Promise<PlanTaskResult<T>> {
    return tracer.startActiveSpan(`toolgate.${kind}`, async (span) => {
      try {
        checkTaskInput(task);
        const { text, images } = await this.understanding.understand(task.text, task.images);
        const timeZone = task.timeZone ?? this.options.timeZone;
        const input: TaskInput = { ...task, text, timeZone };
        const session = task.sessionId ? sessionFrom(await this.sessions.load(principal, task.sessionId)) : emptySession();
        const previous = followUpOf(task.text, session);
        const candidates = await this.candidates(input, previous, principal);
        const followUp = previous && planFollowUp(input.text, previous, candidates, { referenceTime: task.referenceTime ? new Date(task.referenceTime) : new Date(), timeZone });
        const result = await decide({ task: input, candidates, followUp });
        span.setAttributes({ 'toolgate.planner': this.planner.kind, 'toolgate.candidates': candidates.length, 'toolgate.decision': result.decision, 'toolgate.images': images.length });
        if (task.sessionId) await this.remember(task.sessionId, session, task.text, result, principal);
        return { result, candidates, images };
      } finally {
        span.end();
      }
    });
  }

  private async remember(sessionId: string, session: SessionState, text: string, result: Plan | Selection, principal: Principal): Promise<void> {
    const calls = 'steps' in result ? result.steps : result.calls;
    const turn = { text, decision: result.decision, calls: calls.map((c) => ({ tool: c.tool, arguments: c.arguments })), at: new Date().toISOString() };
    await this.sessions.save(principal, sessionId, recordTurn(session, turn));
  }

  /** The funnel's top candidates, then a tool the caller named in toolChoice or used in the previous turn. */
  private async candidates(task: TaskInput, previous: SessionTurn | null, principal: Principal): Promise<PlanningCandidate[]> {
    const found = await this.finder.find(task.text, this.options.candidates, principal);
    const choice = task.toolChoice;
    const refs = [...(choice && typeof choice === 'object' ? [choice.tool] : []), ...(previous?.calls ?? []).map((call) => call.tool)];
    const named = this.finder.named(refs, principal, found);
    // A named tool is no retrieval hit: it adds no score.
    const scored = [...found.map((f) => ({ ...f, score: f.hit.fused })), ...named.map((n) => ({ ...n, score: 0 }))];
    return scored.map(({ tool, version, score }, i) => ({ id: tool.id, version: version.version, descriptor: version.descriptor, score, rank: i + 1 }));
  }
}
