import { Field, InputType, registerEnumType } from '@nestjs/graphql';
import type { TaskInput as PlannerTaskInput, ToolChoice } from '@toolgate/planner';
import { Type } from 'class-transformer';
import { IsEnum, IsISO8601, IsOptional, IsString, Matches, MaxLength, ValidateIf, ValidateNested } from 'class-validator';
import { type ImageInput, ImagesField } from '../tools/tool.inputs';

export enum ToolChoiceMode {
  AUTO = 'AUTO',
  NONE = 'NONE',
  REQUIRED = 'REQUIRED',
  TOOL = 'TOOL',
}
registerEnumType(ToolChoiceMode, { name: 'ToolChoiceMode', description: 'Steers tool use; never grants a tool the caller may not use.' });

@InputType()
export class ToolChoiceInput {
  @Field(() => ToolChoiceMode)
  @IsEnum(ToolChoiceMode)
  mode!: ToolChoiceMode;

  @Field({ nullable: true, description: 'With mode TOOL: the tool to use, `namespace/name`.' })
  @ValidateIf((choice: ToolChoiceInput) => choice.mode === ToolChoiceMode.TOOL)
  @Matches(/^[a-z0-9][a-z0-9._-]*\/[a-z][a-z0-9_-]*(@[0-9A-Za-z.+-]+)?$/, { message: 'tool must be namespace/name[@version] when mode is TOOL' })
  tool?: string;
}

@InputType({ description: 'A task: text, optional images, and how to treat it.' })
export class TaskInput {
  // The length limit is the planner's task-input rule (checkTaskInput), not repeated here.
  @Field({ description: 'What to do, in natural language (at most 20,000 characters).' })
  @IsString()
  text!: string;

  @ImagesField()
  images?: ImageInput[];

  @Field({ nullable: true, description: 'Keeps conversation state across tasks, per caller (follow-ups such as "and in EUR?").' })
  @IsOptional()
  @Matches(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/, { message: 'sessionId must be 1-128 letters, digits, "_", ".", ":" or "-"' })
  sessionId?: string;

  @Field(() => ToolChoiceInput, { nullable: true })
  @IsOptional()
  @ValidateNested()
  @Type(() => ToolChoiceInput)
  toolChoice?: ToolChoiceInput;

  @Field({ nullable: true, description: 'ISO-8601 instant that relative dates resolve against (default: now).' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'referenceTime must be an ISO-8601 date-time' })
  referenceTime?: string;

  @Field({ nullable: true, description: 'IANA time zone for dates and times without one (default: the server setting).' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  timeZone?: string;
}

const toolChoiceOf = (choice: ToolChoiceInput | undefined): ToolChoice | undefined =>
  choice === undefined ? undefined : choice.mode === ToolChoiceMode.TOOL ? { tool: choice.tool as string } : choice.mode;

/** The planner's task from the GraphQL input. */
export function toPlannerTask(input: TaskInput): PlannerTaskInput {
  return {
    text: input.text,
    images: (input.images ?? []).map((image) => ({ mimeType: image.mimeType, data: image.dataBase64 })),
    sessionId: input.sessionId,
    toolChoice: toolChoiceOf(input.toolChoice),
    referenceTime: input.referenceTime,
    timeZone: input.timeZone,
  };
}
