import type { JsonSchema } from '@toolgate/sdk';
import type { TaskImage } from '../plan/plan.types';

/** What argument filling reads besides the text: the contract of `fillArguments` in `arguments/`. */
export interface ArgumentFillContext {
  referenceTime: Date;
  timeZone: string;
  images?: TaskImage[];
  imageText?: string;
  /** Fields already decided (e.g. bound to an earlier step's output): the filler leaves them alone. */
  given?: Record<string, unknown>;
}

/** The part of a filler's answer the planner relies on; missing required fields are re-derived from the schema. */
export interface FilledArguments {
  arguments: Record<string, unknown>;
  /** Required fields the text did not give, and fields it gave several values for: they do not count as filled. */
  missing?: { path: string }[];
  ambiguous?: { path: string }[];
}

export type ArgumentFiller = (text: string, inputSchema: JsonSchema, context: ArgumentFillContext) => FilledArguments | Promise<FilledArguments>;
