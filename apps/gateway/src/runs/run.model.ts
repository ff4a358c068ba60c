import { Field, Float, ID, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import {
  type Run as ContractRun,
  type RunEvent as ContractRunEvent,
  type RunEventType as ContractRunEventType,
  type RunStatus as ContractRunStatus,
  type RunStep as ContractRunStep,
  type StepStatus as ContractStepStatus,
  RUN_EVENT_TYPES,
  RUN_STATUSES,
  type SequencedRunEvent,
  STEP_STATUSES,
} from '@toolgate/sdk';
import { GraphQLJSON } from 'graphql-type-json';

/** A GraphQL enum over the run contract's own list of values (each value its own name), so the schema cannot drift from it. */
function graphqlEnum<V extends string>(values: readonly V[], name: string, description?: string): { readonly [K in V]: K } {
  const members = Object.fromEntries(values.map((value) => [value, value])) as { [K in V]: K };
  registerEnumType(members, { name, description });
  return members;
}

export const RunStatus = graphqlEnum(RUN_STATUSES, 'RunStatus', 'RUNNING until every step is final; PENDING_APPROVAL while a step waits for a decision.');
export type RunStatus = ContractRunStatus;

export const StepStatus = graphqlEnum(STEP_STATUSES, 'StepStatus', 'WAITING (dependencies not done) and RUNNING appear only while a run is in progress.');
export type StepStatus = ContractStepStatus;

export const RunEventType = graphqlEnum(RUN_EVENT_TYPES, 'RunEventType');
export type RunEventType = ContractRunEventType;

@ObjectType({ description: 'Why a step failed: a Toolgate error code, and the offending field for argument and output errors.' })
export class StepError {
  @Field() code!: string;
  @Field() message!: string;
  @Field(() => String, { nullable: true, description: 'JSON pointer of the offending field.' }) path!: string | null;
}

@ObjectType()
export class RunOwner {
  @Field() tenant!: string;
  @Field() subject!: string;
}

@ObjectType({ description: 'One step of a run: the tool version it ran, its outcome and timing.' })
export class RunStep {
  @Field() id!: string;
  @Field({ description: '`namespace/name@version` actually run (the fallback when status is FALLBACK).' }) tool!: string;
  @Field(() => StepStatus) status!: StepStatus;
  @Field(() => Int) attempts!: number;
  @Field(() => GraphQLJSON, {
    nullable: true,
    description:
      'The output as the audit stores it; null with outputWithheld. Past a storage cap (TOOLGATE_RUN_MAX_STEP_OUTPUT_BYTES per step, TOOLGATE_RUN_MAX_OUTPUT_BYTES per run) it is a marker, never the value: `{"$truncated": true, "bytes": <size of the output\'s JSON>, "limit": <the cap it broke, or what was left of the run\'s>, "scope": "step" | "run"}`. Always null in `runs` (a listing never loads outputs): ask `run(id)`.',
  })
  output!: unknown;
  @Field({
    description:
      'True when the caller may not read this step: only the run owner, callers who may execute its tool and approvers of a step it feeds do. output is then null, error keeps only code and path, reason is null.',
  })
  outputWithheld!: boolean;
  @Field(() => StepError, { nullable: true }) error!: StepError | null;
  @Field(() => String, { nullable: true, description: 'Why the step was skipped, cancelled, fell back or waits for approval.' }) reason!: string | null;
  @Field(() => String, { nullable: true, description: 'With FALLBACK: the tool that failed and was replaced.' }) fallbackOf!: string | null;
  @Field(() => [String]) dependsOn!: string[];
  @Field(() => String, { nullable: true }) startedAt!: string | null;
  @Field(() => Float) durationMs!: number;

  /** `outputWithheld` is set by the run's read rule (gateway use-cases/run-visibility.service.ts); a step without it is the caller's own. */
  static from(step: ContractRunStep & { outputWithheld?: boolean }): RunStep {
    return {
      id: step.id,
      tool: step.tool,
      status: step.status,
      attempts: step.attempts,
      output: step.output ?? null,
      outputWithheld: step.outputWithheld === true,
      error: step.error ? { code: step.error.code, message: step.error.message, path: step.error.path ?? null } : null,
      reason: step.reason ?? null,
      fallbackOf: step.fallbackOf ?? null,
      dependsOn: step.dependsOn,
      startedAt: step.startedAt,
      durationMs: step.durationMs,
    };
  }
}

@ObjectType({ description: 'One execution of a plan: every step with its outcome, and the trace it was recorded under.' })
export class Run {
  @Field(() => ID) id!: string;
  @Field(() => RunStatus) status!: RunStatus;
  @Field({ description: 'OpenTelemetry trace id of the run (Jaeger finds it).' }) traceId!: string;
  @Field() planId!: string;
  @Field(() => RunOwner) owner!: RunOwner;
  @Field(() => String, { nullable: true, description: 'The task text the plan came from.' }) task!: string | null;
  @Field(() => [RunStep]) steps!: RunStep[];
  @Field(() => Int, { description: 'Re-plans done after failed steps.' }) replans!: number;
  @Field(() => String, { nullable: true, description: 'Why the run ended or paused as it did, when that is not plain success.' }) reason!: string | null;
  @Field() startedAt!: string;
  @Field(() => String, { nullable: true }) finishedAt!: string | null;

  static from(run: ContractRun): Run {
    return {
      id: run.id,
      status: run.status,
      traceId: run.traceId,
      planId: run.planId,
      owner: { tenant: run.owner.tenant, subject: run.owner.subject },
      task: run.task ?? null,
      steps: run.steps.map(RunStep.from),
      replans: run.replans,
      reason: run.reason ?? null,
      startedAt: run.startedAt,
      finishedAt: run.finishedAt,
    };
  }
}

const stepIdOf = (event: ContractRunEvent): string | null => ('stepId' in event ? event.stepId : 'step' in event ? event.step.id : null);
const toolOf = (event: ContractRunEvent): string | null => ('tool' in event ? event.tool : 'step' in event ? event.step.tool : null);

@ObjectType({ description: "One entry of a run's audit record, in order (seq 1, 2, 3, ...); `payload` is the whole event." })
export class RunEvent {
  @Field() runId!: string;
  @Field(() => Int) seq!: number;
  @Field(() => RunEventType) type!: RunEventType;
  @Field() at!: string;
  @Field(() => String, { nullable: true }) stepId!: string | null;
  @Field(() => String, { nullable: true }) tool!: string | null;
  @Field(() => String, { nullable: true, description: 'STEP_FINISHED: the step status; RUN_STARTED/RUN_FINISHED: the run status; ATTEMPT: its outcome.' })
  status!: string | null;
  @Field(() => GraphQLJSON) payload!: unknown;

  static from(runId: string, { seq, event }: SequencedRunEvent): RunEvent {
    const status = 'run' in event ? event.run.status : 'step' in event ? event.step.status : event.type === 'ATTEMPT' ? event.outcome : null;
    return { runId, seq, type: event.type, at: event.at, stepId: stepIdOf(event), tool: toolOf(event), status, payload: event };
  }
}
