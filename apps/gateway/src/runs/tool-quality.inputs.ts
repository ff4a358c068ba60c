import { Field, InputType, Int } from '@nestjs/graphql';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { TOOL_QUALITY_BOUNDS } from '../use-cases/tool-quality.use-case';

const { sinceHours, bucketMinutes, maxBuckets } = TOOL_QUALITY_BOUNDS;

@InputType({ description: `The window of a tool-quality report; at most ${maxBuckets} buckets (sinceHours*60/bucketMinutes).` })
export class ToolQualityInput {
  @Field(() => Int, { nullable: true, description: `Hours back from now; default ${sinceHours.default}, ${sinceHours.min} to ${sinceHours.max}.` })
  @IsOptional()
  @IsInt()
  @Min(sinceHours.min)
  @Max(sinceHours.max)
  sinceHours?: number;

  @Field(() => Int, { nullable: true, description: `Minutes per series bucket; default ${bucketMinutes.default}, ${bucketMinutes.min} to ${bucketMinutes.max}.` })
  @IsOptional()
  @IsInt()
  @Min(bucketMinutes.min)
  @Max(bucketMinutes.max)
  bucketMinutes?: number;
}
