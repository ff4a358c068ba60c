import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type { PlanningCandidate } from '../plan/plan.types';
import { forModel, toStrictSchema } from './strict-schema.converter';

/** Our own function for "I need a value from the user"; aliases always contain `__`, so it never collides. */
export const CLARIFY_FUNCTION = 'ask_user';

/** One candidate as the model sees it: a function name it may use and how its arguments were sent. */
export interface CandidateTool {
  alias: string;
  candidate: PlanningCandidate;
  /** `namespace/name@version`: what plan steps and calls name. */
  ref: string;
  /** True when the parameters went out in strict mode (optional fields as nullable). */
  strict: boolean;
  /** The input schema as a model is shown it (forModel), and in its strict form when `strict`: converted once per request. */
  parameters: object;
  functionParameters: object;
}

const FUNCTION_NAME_LIMIT = 64;

/** `units/convert` -> `units__convert`: function names allow only `[a-zA-Z0-9_-]{1,64}`. */
function aliasOf(id: string): string {
  const [namespace, name] = id.split('/');
  return `${namespace}__${name ?? ''}`.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, FUNCTION_NAME_LIMIT);
}

/**
 * The candidates as function tools, in rank order, with the map from alias back to the candidate.
 * Only these schemas go into a request: the planner never shows (or accepts) any other tool.
 */
export class CandidateTools {
  private readonly byAlias = new Map<string, CandidateTool>();

  constructor(candidates: readonly PlanningCandidate[]) {
    for (const candidate of [...candidates].sort((a, b) => a.rank - b.rank)) {
      let alias = aliasOf(candidate.id);
      // Distinct ids can sanitise to one alias (e.g. `a.b/x` and `a_b/x`): number the later ones.
      for (let n = 2; this.byAlias.has(alias) || alias === CLARIFY_FUNCTION; n++) alias = `${aliasOf(candidate.id).slice(0, FUNCTION_NAME_LIMIT - 4)}_${n}`;
      const parameters = forModel(candidate.descriptor.inputSchema) as object;
      const strictParameters = toStrictSchema(parameters);
      this.byAlias.set(alias, { alias, candidate, ref: `${candidate.id}@${candidate.version}`, strict: strictParameters !== null, parameters, functionParameters: strictParameters ?? parameters });
    }
  }

  get all(): CandidateTool[] {
    return [...this.byAlias.values()];
  }

  get aliases(): string[] {
    return [...this.byAlias.keys()];
  }

  byName(alias: string): CandidateTool | undefined {
    return this.byAlias.get(alias);
  }

  /** The candidate a caller named (`namespace/name`, with or without `@version`), when it is one. */
  find(toolRef: string): CandidateTool | undefined {
    const [id, version] = toolRef.trim().split('@');
    return this.all.find(({ candidate }) => candidate.id === id && (version === undefined || candidate.version === version));
  }

  functionTools(): ChatCompletionFunctionTool[] {
    return this.all.map(({ alias, candidate, strict, functionParameters }) => ({
      type: 'function',
      function: { name: alias, description: describe(candidate), parameters: functionParameters as Record<string, unknown>, strict },
    }));
  }

  /** The candidates as a model reads them in a prompt: name, what it does, its parameters. */
  catalog(): { name: string; description: string; parameters: unknown }[] {
    return this.all.map(({ alias, candidate, parameters }) => ({ name: alias, description: describe(candidate), parameters }));
  }
}

const describe = (candidate: PlanningCandidate): string => `${candidate.id}: ${candidate.descriptor.title}. ${candidate.descriptor.description}`;

/** Lets the model ask for a value the task does not give, instead of guessing one. */
export const clarifyFunctionTool: ChatCompletionFunctionTool = {
  type: 'function',
  function: {
    name: CLARIFY_FUNCTION,
    description: 'Ask the user for a value a tool needs that the task does not give. Never guess a missing required value.',
    parameters: {
      type: 'object',
      properties: {
        question: { type: 'string', description: 'The question for the user, naming what is missing.' },
        missing: {
          type: 'array',
          description: 'The missing arguments.',
          items: {
            type: 'object',
            properties: { tool: { type: 'string', description: 'Function name of the tool.' }, field: { type: 'string', description: 'Argument name.' } },
            required: ['tool', 'field'],
            additionalProperties: false,
          },
        },
      },
      required: ['question', 'missing'],
      additionalProperties: false,
    },
    strict: true,
  },
};
