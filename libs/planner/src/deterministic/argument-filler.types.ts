import type { JsonSchema } from '@toolgate/sdk';
import type { ArgumentFill, ArgumentFillContext } from '../arguments/argument-fill.types';

export type { ArgumentFillContext };

/** The part of a filler's answer the planner relies on; missing required fields are re-derived from the schema. */
export type FilledArguments = Pick<ArgumentFill, 'arguments'> & Partial<Pick<ArgumentFill, 'missing' | 'ambiguous' | 'each' | 'guessed' | 'defaulted' | 'evidence'>>;

/** How the planner fills a step's arguments: `fillArguments` from `arguments/` by default. */
export type ArgumentFiller = (text: string, inputSchema: JsonSchema, context: ArgumentFillContext) => FilledArguments | Promise<FilledArguments>;
