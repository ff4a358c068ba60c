import { Field, Float, ID, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import type { ImageDescription, MissingArgument as PlannerMissingArgument, Plan as PlannerPlan, Selection as PlannerSelection, PlanningCandidate } from '@toolgate/planner';
import { GraphQLJSON } from 'graphql-type-json';
import { ImageText } from '../tools/tool.model';

export enum DecisionKind {
  USE_TOOLS = 'USE_TOOLS',
  ANSWER_DIRECTLY = 'ANSWER_DIRECTLY',
  CLARIFY = 'CLARIFY',
  NO_MATCH = 'NO_MATCH',
}
registerEnumType(DecisionKind, { name: 'Decision', description: 'Use tools, answer without them (LLM planner only), ask for what is missing, or no tool fits.' });

@ObjectType({ description: 'A required argument the task did not give.' })
export class MissingArgument {
  @Field({ nullable: true }) step?: string;
  @Field() tool!: string;
  @Field({ description: 'JSON pointer into the tool arguments, e.g. /to.' }) path!: string;
  @Field({ nullable: true }) description?: string;
}

@ObjectType({ description: 'A tool the planner was allowed to name: retrieved for this caller.' })
export class PlanCandidate {
  @Field() id!: string;
  @Field() version!: string;
  @Field() title!: string;
  @Field(() => Float) score!: number;
  @Field(() => Int) rank!: number;

  static from(candidate: PlanningCandidate): PlanCandidate {
    return { id: candidate.id, version: candidate.version, title: candidate.descriptor.title, score: candidate.score, rank: candidate.rank };
  }
}

@ObjectType({ description: 'One step: a tool call whose arguments may bind earlier outputs ({"$ref": "steps.<id>.output.<pointer>"}).' })
export class PlanStep {
  @Field() id!: string;
  @Field() tool!: string;
  @Field(() => GraphQLJSON) arguments!: Record<string, unknown>;
  @Field(() => [String]) dependsOn!: string[];
  @Field() reason!: string;
}

@ObjectType()
export class ProposedCall {
  @Field() tool!: string;
  @Field(() => GraphQLJSON) arguments!: Record<string, unknown>;
  @Field() reason!: string;
}

const missingOf = (missing: PlannerMissingArgument[] | undefined): MissingArgument[] => missing ?? [];

@ObjectType({ description: 'A proposal: a DAG of tool calls, or a question, or why no tool is used. Nothing has run.' })
export class Plan {
  @Field(() => ID) id!: string;
  @Field(() => DecisionKind) decision!: DecisionKind;
  @Field({ nullable: true }) question?: string;
  @Field({ nullable: true }) explanation?: string;
  @Field(() => [MissingArgument]) missing!: MissingArgument[];
  @Field(() => [PlanStep]) steps!: PlanStep[];
  @Field(() => [PlanCandidate]) candidates!: PlanCandidate[];
  @Field(() => [ImageText]) images!: ImageText[];
  @Field(() => Float, { nullable: true, description: 'How sure the planner is, 0..1; with TOOLGATE_PLANNER=auto a deterministic plan below TOOLGATE_PLANNER_ESCALATE_BELOW goes to the LLM.' })
  confidence?: number;
  @Field({ nullable: true, description: 'Which planner made it: deterministic or llm.' }) planner?: string;

  static from(plan: PlannerPlan, candidates: PlanningCandidate[], images: ImageDescription[]): Plan {
    return {
      id: plan.id,
      decision: plan.decision as DecisionKind,
      question: plan.question,
      explanation: plan.explanation,
      missing: missingOf(plan.missing),
      steps: plan.steps,
      candidates: candidates.map(PlanCandidate.from),
      images: images.map(ImageText.from),
      confidence: plan.confidence,
      planner: plan.planner,
    };
  }
}

@ObjectType({ description: 'One round of tool choice: the decision and the proposed calls (unordered).' })
export class Selection {
  @Field(() => DecisionKind) decision!: DecisionKind;
  @Field({ nullable: true }) question?: string;
  @Field({ nullable: true }) explanation?: string;
  @Field(() => [MissingArgument]) missing!: MissingArgument[];
  @Field(() => [PlanCandidate]) candidates!: PlanCandidate[];
  @Field(() => [ProposedCall]) calls!: ProposedCall[];
  @Field(() => [ImageText]) images!: ImageText[];
  @Field(() => Float, { nullable: true, description: 'As on Plan.' }) confidence?: number;
  @Field({ nullable: true, description: 'As on Plan.' }) planner?: string;

  static from(selection: PlannerSelection, images: ImageDescription[]): Selection {
    return {
      decision: selection.decision as DecisionKind,
      question: selection.question,
      explanation: selection.explanation,
      missing: missingOf(selection.missing),
      candidates: selection.candidates.map(PlanCandidate.from),
      calls: selection.calls,
      images: images.map(ImageText.from),
      confidence: selection.confidence,
      planner: selection.planner,
    };
  }
}
