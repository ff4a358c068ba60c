import { Injectable } from '@nestjs/common';
import { PlanRunner, type Run, RunEventBus, type SequencedRunEvent } from '@toolgate/executor';
import { type Principal, RunAuditService } from '@toolgate/registry';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { Observable } from 'rxjs';

const MAX_COMMENT_CHARS = 2000;

/** Same answer for a run that does not exist and one of another tenant. */
const noSuchRun = (runId: string) => new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `no run ${runId}`, [{ path: '/runId', message: 'no such run' }]);

/**
 * Runs as a caller may see and steer them. Runs are visible within their tenant only: another tenant's
 * run answers exactly like a missing one. Who may approve or cancel is the runner's rule.
 */
@Injectable()
export class RunAccessService {
  constructor(
    private readonly audit: RunAuditService,
    private readonly runner: PlanRunner,
    private readonly bus: RunEventBus,
  ) {}

  async find(runId: string, principal: Principal): Promise<Run | null> {
    const run = await this.audit.load(runId);
    return run && run.owner.tenant === principal.tenant ? run : null;
  }

  /** Runs of the caller's tenant (of one subject with `subject`), newest first. */
  list(principal: Principal, filter: { status?: Run['status']; subject?: string; limit?: number }): Promise<Run[]> {
    return this.audit.list({ tenant: principal.tenant, subject: filter.subject, status: filter.status, limit: filter.limit });
  }

  async decide(runId: string, stepId: string, approved: boolean, principal: Principal, comment?: string): Promise<Run> {
    if (comment !== undefined && comment.length > MAX_COMMENT_CHARS) {
      throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `a comment has at most ${MAX_COMMENT_CHARS} characters`, [{ path: '/comment', message: 'too long' }]);
    }
    await this.visible(runId, principal);
    return this.runner.decide(runId, stepId, approved, principal, comment);
  }

  async cancel(runId: string, principal: Principal): Promise<Run> {
    await this.visible(runId, principal);
    return this.runner.cancel(runId, principal);
  }

  /**
   * The run's events in order: those already recorded, then live ones as they are recorded; completes
   * after RUN_FINISHED. A live event that skips a number (a missed publication) is filled in from the
   * record, so a subscriber sees every seq once, in order.
   */
  async events(runId: string, principal: Principal): Promise<Observable<SequencedRunEvent>> {
    await this.visible(runId, principal);
    return new Observable<SequencedRunEvent>((subscriber) => {
      let last = 0;
      const emit = (event: SequencedRunEvent) => {
        if (event.seq !== last + 1 || subscriber.closed) return;
        last = event.seq;
        subscriber.next(event);
        if (event.event.type === 'RUN_FINISHED') subscriber.complete();
      };
      const catchUp = async () => {
        for (const event of await this.audit.events(runId, last)) emit(event);
      };
      let chain = Promise.resolve();
      const enqueue = (work: () => Promise<void> | void) => {
        chain = chain.then(work).catch((error: unknown) => subscriber.error(error));
      };
      // Live first, so nothing recorded while the record is read is missed.
      const live = this.bus.of(runId).subscribe({
        next: (event) => enqueue(() => (event.seq === last + 1 ? emit(event) : event.seq > last ? catchUp() : undefined)),
        complete: () => enqueue(() => subscriber.complete()),
      });
      enqueue(catchUp);
      return () => live.unsubscribe();
    });
  }

  private async visible(runId: string, principal: Principal): Promise<Run> {
    const run = await this.find(runId, principal);
    if (!run) throw noSuchRun(runId);
    return run;
  }
}
