import { Field, Int, ObjectType, registerEnumType } from '@nestjs/graphql';

export enum BreakerState {
  CLOSED = 'CLOSED',
  OPEN = 'OPEN',
  HALF_OPEN = 'HALF_OPEN',
}
registerEnumType(BreakerState, { name: 'BreakerState', description: 'OPEN refuses calls at once (CIRCUIT_OPEN); HALF_OPEN lets a probe through.' });

@ObjectType()
export class ToolFailure {
  @Field() code!: string;
  @Field() message!: string;
  @Field() at!: string;
}

@ObjectType({ description: "A tool version's circuit breaker and load as the caller's tenant sees it: its own breaker, failures and calls, and the shared state." })
export class BreakerStatus {
  @Field(() => BreakerState, { description: "What the tenant's calls get now: its own breaker's state, or OPEN while the shared breaker is." }) state!: BreakerState;
  @Field(() => BreakerState, { description: "The tool-wide breaker: OPEN only while several tenants' own breakers are open." }) shared!: BreakerState;
  @Field({ description: 'CONSECUTIVE (quiet tool) or SAMPLING (busy tool): which verdict opens it now.' }) mode!: string;
  @Field(() => Int) consecutiveFailures!: number;
  @Field(() => Int, { description: "The tenant's failed attempts since the server started calling it." }) failures!: number;
  @Field(() => ToolFailure, { nullable: true, description: "The tenant's own last failure; never another tenant's." }) lastFailure!: ToolFailure | null;
  @Field(() => Int, { description: "The tenant's calls in flight." }) inFlight!: number;
  @Field(() => Int, { description: 'How many calls the tenant may hold at once (its fair share of maxConcurrency).' }) tenantLimit!: number;
  @Field(() => Int) maxConcurrency!: number;
}

@ObjectType({ description: "A tool version's scheduled health check result." })
export class HealthStatus {
  @Field() healthy!: boolean;
  @Field(() => String, { nullable: true }) detail!: string | null;
  @Field() checkedAt!: string;
  @Field(() => Int, { description: 'Checks failed in a row.' }) failures!: number;
}

@ObjectType({ description: 'Breaker and health of one tool version; a version not called or not checked yet has null there.' })
export class ToolHealthReport {
  @Field() toolId!: string;
  @Field() version!: string;
  @Field(() => BreakerStatus, { nullable: true }) breaker!: BreakerStatus | null;
  @Field(() => HealthStatus, { nullable: true }) health!: HealthStatus | null;
}
