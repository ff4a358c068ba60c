import { Field, InputType, Int } from '@nestjs/graphql';
import type { Plan } from '@toolgate/planner';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsEnum, IsInt, IsObject, IsOptional, IsString, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { GraphQLJSON } from 'graphql-type-json';
import { RunStatus } from './run.model';

/** Shapes only: the executor validates a supplied plan exactly like a planned one (tools, grants, arguments, bindings, cycles). */
@InputType({ description: 'One step of a caller-supplied plan; an argument may bind an earlier output: {"$ref": "steps.<id>.output/<pointer>"}.' })
export class PlanStepInput {
  @Field()
  @IsString()
  @MaxLength(64)
  id!: string;

  @Field({ description: '`namespace/name` or `namespace/name@version`.' })
  @IsString()
  @MaxLength(300)
  tool!: string;

  @Field(() => GraphQLJSON)
  @IsObject()
  arguments!: Record<string, unknown>;

  @Field(() => [String], { nullable: true })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  dependsOn?: string[];

  @Field({ nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  reason?: string;
}

@InputType({ description: 'A plan to run as given (no planner involved).' })
export class PlanInput {
  @Field({ nullable: true, description: 'Your id for the plan (default: generated).' })
  @IsOptional()
  @Matches(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/, { message: 'id must be 1-64 letters, digits, "_", ".", ":" or "-"' })
  id?: string;

  @Field(() => [PlanStepInput])
  @IsArray()
  @ArrayMaxSize(1000)
  @ValidateNested({ each: true })
  @Type(() => PlanStepInput)
  steps!: PlanStepInput[];
}

/** The executor's plan from the GraphQL input. */
export function toPlan(input: PlanInput, id: string): Plan {
  return {
    id: input.id ?? id,
    decision: 'USE_TOOLS',
    steps: input.steps.map((step) => ({ id: step.id, tool: step.tool, arguments: step.arguments, dependsOn: step.dependsOn ?? [], reason: step.reason ?? '' })),
  };
}

@InputType()
export class RunFilterInput {
  @Field(() => RunStatus, { nullable: true })
  @IsOptional()
  @IsEnum(RunStatus)
  status?: RunStatus;

  @Field({ nullable: true, description: "Only this subject's runs (default: every run of your tenant)." })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  subject?: string;

  @Field(() => Int, { nullable: true, description: 'Newest first; default 50, at most 500.' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(500)
  limit?: number;
}
