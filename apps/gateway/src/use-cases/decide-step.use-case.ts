import { Injectable } from '@nestjs/common';
import { PlanRunner } from '@toolgate/executor';
import type { Principal } from '@toolgate/registry';
import { ErrorCode, type Run, ToolgateError } from '@toolgate/sdk';
import { RunLearningSubscriber } from './run-learning.subscriber';
import { RunVisibility } from './run-visibility.service';

const MAX_COMMENT_CHARS = 2000;

export interface StepDecision {
  runId: string;
  stepId: string;
  approved: boolean;
  comment?: string;
}

/** Approves or rejects a step waiting for approval; returns when the run finishes or waits again. */
@Injectable()
export class DecideStepUseCase {
  constructor(
    private readonly visibility: RunVisibility,
    private readonly runner: PlanRunner,
    private readonly learning: RunLearningSubscriber,
  ) {}

  async execute({ runId, stepId, approved, comment }: StepDecision, principal: Principal): Promise<Run> {
    if (comment !== undefined && comment.length > MAX_COMMENT_CHARS) {
      throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `a comment has at most ${MAX_COMMENT_CHARS} characters`, [{ path: '/comment', message: 'too long' }]);
    }
    await this.visibility.require(runId, principal);
    const run = await this.runner.decide(runId, stepId, approved, principal, comment);
    // What the resumed steps taught is stored by the time the caller hears back, as after runTask.
    await this.learning.settled(runId);
    // An approver is not always the owner: it sees what the run's read rule lets it see.
    return this.visibility.view(run, principal);
  }
}
