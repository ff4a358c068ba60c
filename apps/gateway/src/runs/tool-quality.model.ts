import { Field, Float, ID, Int, ObjectType } from '@nestjs/graphql';

@ObjectType({ description: 'A run whose step failed with this tool: the task it was planned from, and how the call failed.' })
export class FailingQuery {
  @Field(() => ID, { description: 'The run the failed step belongs to.' }) runId!: string;
  @Field(() => String, { nullable: true, description: 'The task text of the run; null for a plan the caller wrote.' }) task!: string | null;
  @Field({ description: "The step's error code; FAILED when the step kept none (a tool replaced by its fallback)." }) code!: string;
  @Field({ description: 'When the step started (ISO 8601).' }) at!: string;
}

@ObjectType({ description: "One time bucket of a tool version's calls." })
export class ToolQualityBucket {
  @Field({ description: 'Start of the bucket (ISO 8601); it lasts bucketMinutes.' }) start!: string;
  @Field(() => Int, { description: 'Calls that started in the bucket.' }) calls!: number;
  @Field(() => Int, { description: 'Of them, the failed ones.' }) failures!: number;
  @Field(() => Int, { description: 'Attempts beyond the first, summed.' }) retries!: number;
  @Field(() => Float, { nullable: true, description: 'Nearest-rank p95 of step durations in ms; null without a sample.' }) p95Ms!: number | null;
}

@ObjectType({ description: "One tool version's calls over the window, with the runs that failed on it." })
export class ToolQuality {
  @Field({ description: '`namespace/name@version`.' }) tool!: string;
  @Field({ description: '`namespace/name`.' }) toolId!: string;
  @Field() version!: string;
  @Field(() => Int, { description: 'Calls in the window; a tool replaced by its fallback counts one failed call, the fallback one more.' }) calls!: number;
  @Field(() => Int, { description: 'Calls that failed.' }) failures!: number;
  @Field(() => Float, { description: 'failures / calls, 0 to 1.' }) failureRate!: number;
  @Field(() => Int, { description: 'Attempts beyond the first, summed over its calls.' }) retries!: number;
  @Field(() => Float, { nullable: true, description: "Nearest-rank p95 of its steps' durations in ms (a fallback step's time counts for the tool that failed); null without a sample." })
  p95Ms!: number | null;
  @Field(() => [ToolQualityBucket], { description: 'Every bucket of the window, oldest first, empty ones included.' }) series!: ToolQualityBucket[];
  @Field(() => [FailingQuery], { description: 'The most recent failures (at most 5), newest first.' }) failingQueries!: FailingQuery[];
}

@ObjectType({ description: "Where tool calls break: the caller's tenant's runs in a window, per tool version the caller may discover, weakest first." })
export class ToolQualityReport {
  @Field({ description: 'Window start (ISO 8601).' }) since!: string;
  @Field({ description: 'Window end, the time of the query (ISO 8601).' }) until!: string;
  @Field(() => Int, { description: 'Length of each series bucket.' }) bucketMinutes!: number;
  @Field(() => Int, { description: 'Runs started in the window that were read.' }) runsConsidered!: number;
  @Field({ description: 'True when the window holds more runs than the 500 newest that were read.' }) truncated!: boolean;
  @Field(() => [ToolQuality], { description: 'By failure rate, then failures, then calls, highest first.' }) tools!: ToolQuality[];
}
