import { checkAgainstSchema, type ErrorDetail } from '@toolgate/sdk';
import type { Decision, MissingArgument, PlanStep, ToolChoice } from '../plan/plan.types';
import { findBindings, parseBindingRef } from './binding-ref.util';
import type { CandidateTool, CandidateTools } from './candidate.tools';

export const DECISIONS: readonly Decision[] = ['USE_TOOLS', 'ANSWER_DIRECTLY', 'CLARIFY', 'NO_MATCH'];
const STEP_ID = '^[A-Za-z0-9_-]{1,64}$';

/**
 * The schema of a plan reply (in strict mode's form: every object closed, every field required,
 * nullable where optional). Arguments travel as JSON text where the schema is enforced (strict mode
 * has no free-form objects) and as an object where it is only shown; each tool's own schema is
 * checked after parsing either way.
 */
export function planReplySchema(aliases: readonly string[], argumentsAs: 'text' | 'object' = 'text'): Record<string, unknown> {
  const argumentsHelp = 'A value taken from an earlier step is {"$ref":"steps.<id>.output/<field>"}, and that step must be in dependsOn.';
  const nullableText = (description: string) => ({ type: ['string', 'null'], description });
  return {
    type: 'object',
    additionalProperties: false,
    required: ['decision', 'question', 'explanation', 'missing', 'steps'],
    properties: {
      decision: { type: 'string', enum: DECISIONS },
      question: nullableText('With CLARIFY: the question for the user, naming what is missing.'),
      explanation: nullableText('Why this decision; with ANSWER_DIRECTLY, the answer.'),
      missing: {
        type: 'array',
        description: 'With CLARIFY: each required argument the task does not give.',
        items: { type: 'object', additionalProperties: false, required: ['tool', 'field'], properties: { tool: { type: 'string' }, field: { type: 'string' } } },
      },
      steps: {
        type: 'array',
        ...(aliases.length === 0 ? { maxItems: 0 } : {}),
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['id', 'tool', 'arguments', 'dependsOn', 'reason'],
          properties: {
            id: { type: 'string', pattern: STEP_ID, description: 'Unique step id, e.g. s1.' },
            tool: aliases.length === 0 ? { type: 'string' } : { type: 'string', enum: aliases },
            arguments:
              argumentsAs === 'text'
                ? { type: 'string', description: `The arguments as a JSON object. ${argumentsHelp}` }
                : { type: 'object', description: `The arguments, valid against the tool's parameters. ${argumentsHelp}` },
            dependsOn: { type: 'array', items: { type: 'string' } },
            reason: { type: 'string' },
          },
        },
      },
    },
  };
}

/** What the reply must look like once parsed; arguments may come as JSON text or, from lenient servers, as an object. */
const REPLY_SHAPE = {
  type: 'object',
  required: ['decision', 'steps'],
  properties: {
    decision: { enum: DECISIONS },
    question: { type: ['string', 'null'] },
    explanation: { type: ['string', 'null'] },
    missing: { type: ['array', 'null'], items: { type: 'object', required: ['tool', 'field'], properties: { tool: { type: 'string' }, field: { type: 'string' } } } },
    steps: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'tool', 'arguments', 'dependsOn'],
        properties: {
          id: { type: 'string', pattern: STEP_ID },
          tool: { type: 'string' },
          arguments: { type: ['string', 'object'] },
          dependsOn: { type: 'array', items: { type: 'string' } },
          reason: { type: ['string', 'null'] },
        },
      },
    },
  },
} as const;

interface RawStep {
  id: string;
  tool: string;
  arguments: string | Record<string, unknown>;
  dependsOn: string[];
  reason?: string | null;
}

interface RawPlan {
  decision: Decision;
  question?: string | null;
  explanation?: string | null;
  missing?: { tool: string; field: string }[] | null;
  steps: RawStep[];
}

export interface CheckedPlan {
  decision: Decision;
  question?: string;
  explanation?: string;
  missing?: MissingArgument[];
  steps: PlanStep[];
}

export type Checked<T> = { ok: true; value: T } | { ok: false; errors: ErrorDetail[] };

/** Parses a tool's argument JSON: a JSON object, or an error at `path`. */
export function parseArgumentObject(text: string | Record<string, unknown>, path: string): Checked<Record<string, unknown>> {
  let value: unknown = text;
  if (typeof text === 'string') {
    try {
      value = JSON.parse(text);
    } catch (error) {
      return { ok: false, errors: [{ path, message: `is not valid JSON (${(error as Error).message})` }] };
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, errors: [{ path, message: 'must be a JSON object' }] };
  return { ok: true, value: value as Record<string, unknown> };
}

/** The candidate a reply names: its alias, or (leniently) its tool id. Nothing outside the candidates resolves. */
export const resolveTool = (tools: CandidateTools, name: string): CandidateTool | undefined => tools.byName(name) ?? tools.find(name);

export const unknownToolMessage = (tools: CandidateTools) => `is not an available tool; tools outside this list do not exist: ${tools.aliases.join(', ') || '(none: answer without tools)'}`;

/**
 * Field-level problems of `args` against the tool's ORIGINAL input schema. Where a binding stands
 * for a value, the binding is accepted in its place; an unknown field stays an error either way.
 */
export function checkArguments(tool: CandidateTool, args: Record<string, unknown>, path: string, dependsOn?: readonly string[]): ErrorDetail[] {
  const bindings = findBindings(args);
  const errors: ErrorDetail[] = [];
  for (const binding of bindings) {
    const at = `${path}${binding.path}`;
    const parsed = typeof binding.ref === 'string' ? parseBindingRef(binding.ref) : null;
    if (!dependsOn) errors.push({ path: at, message: 'a binding to another output is not allowed here: give the value itself' });
    else if (!parsed) errors.push({ path: `${at}/$ref`, message: 'must be "steps.<id>.output" followed by a JSON pointer, e.g. "steps.s1.output/result"' });
    else if (!dependsOn.includes(parsed.step)) errors.push({ path: `${at}/$ref`, message: `refers to step "${parsed.step}", which is not in this step's dependsOn` });
  }
  const bound = bindings.map((binding) => `${path}${binding.path}`);
  const schemaErrors = checkAgainstSchema(tool.candidate.descriptor.inputSchema, args, path).filter(
    (error) => !bound.some((at) => error.path.startsWith(`${at}/`) || (error.path === at && error.message !== 'is not a known field')),
  );
  return [...errors, ...schemaErrors];
}

/** Step ids that are part of a cycle, or `[]` when the steps form a DAG (Kahn's algorithm). */
function cyclicSteps(steps: readonly { id: string; dependsOn: readonly string[] }[]): string[] {
  const waiting = new Map(steps.map((step) => [step.id, new Set(step.dependsOn)]));
  let progressed = true;
  while (progressed) {
    progressed = false;
    for (const [id, deps] of waiting) {
      if ([...deps].every((dep) => !waiting.has(dep))) {
        waiting.delete(id);
        progressed = true;
      }
    }
  }
  return [...waiting.keys()];
}

/** Checks a parsed plan reply completely; every problem comes back with a JSON pointer into the reply. */
export function checkPlanReply(reply: unknown, tools: CandidateTools, toolChoice: ToolChoice = 'AUTO'): Checked<CheckedPlan> {
  const shape = checkAgainstSchema(REPLY_SHAPE, reply);
  if (shape.length > 0) return { ok: false, errors: shape };
  const raw = reply as RawPlan;
  const errors: ErrorDetail[] = [];
  const ids = new Set<string>();
  const steps: PlanStep[] = [];

  raw.steps.forEach((step, i) => {
    if (ids.has(step.id)) errors.push({ path: `/steps/${i}/id`, message: `duplicates step id "${step.id}"` });
    ids.add(step.id);
  });
  raw.steps.forEach((step, i) => {
    const at = `/steps/${i}`;
    const tool = resolveTool(tools, step.tool);
    if (!tool) errors.push({ path: `${at}/tool`, message: `"${step.tool}" ${unknownToolMessage(tools)}` });
    step.dependsOn.forEach((dep, j) => {
      if (dep === step.id) errors.push({ path: `${at}/dependsOn/${j}`, message: 'a step cannot depend on itself' });
      else if (!ids.has(dep)) errors.push({ path: `${at}/dependsOn/${j}`, message: `refers to step "${dep}", which does not exist` });
    });
    const args = parseArgumentObject(step.arguments, `${at}/arguments`);
    if (!args.ok) errors.push(...args.errors);
    else if (tool) errors.push(...checkArguments(tool, args.value, `${at}/arguments`, step.dependsOn));
    if (tool && args.ok) steps.push({ id: step.id, tool: tool.ref, arguments: args.value, dependsOn: [...new Set(step.dependsOn)], reason: step.reason ?? '' });
  });
  const cycle = cyclicSteps(raw.steps);
  if (cycle.length > 0) errors.push({ path: '/steps', message: `steps ${cycle.join(', ')} form a cycle through dependsOn` });

  errors.push(...checkDecision(raw, tools, toolChoice));
  if (errors.length > 0) return { ok: false, errors };

  const missing = (raw.missing ?? []).map(({ tool, field }) => ({ tool: resolveTool(tools, tool)?.ref ?? tool, path: `/${field.replace(/^\//, '')}` }));
  return {
    ok: true,
    value: {
      decision: raw.decision,
      ...(raw.question ? { question: raw.question } : {}),
      ...(raw.explanation ? { explanation: raw.explanation } : {}),
      ...(raw.decision === 'CLARIFY' && missing.length > 0 ? { missing } : {}),
      steps: raw.decision === 'USE_TOOLS' ? steps : [],
    },
  };
}

function checkDecision(raw: RawPlan, tools: CandidateTools, toolChoice: ToolChoice): ErrorDetail[] {
  const errors: ErrorDetail[] = [];
  if (raw.decision === 'USE_TOOLS' && raw.steps.length === 0) errors.push({ path: '/steps', message: 'USE_TOOLS needs at least one step' });
  if (raw.decision !== 'USE_TOOLS' && raw.steps.length > 0) errors.push({ path: '/steps', message: `must be empty with ${raw.decision}` });
  if (raw.decision === 'CLARIFY' && !raw.question?.trim()) errors.push({ path: '/question', message: 'CLARIFY needs the question for the user' });
  if (toolChoice === 'NONE' && raw.steps.length > 0) errors.push({ path: '/steps', message: 'tools must not be used for this task' });
  if (toolChoice === 'REQUIRED' && (raw.decision === 'ANSWER_DIRECTLY' || raw.decision === 'NO_MATCH')) {
    errors.push({ path: '/decision', message: 'this task must use a tool (or ask with CLARIFY)' });
  }
  if (typeof toolChoice === 'object' && raw.decision === 'USE_TOOLS') {
    const wanted = tools.find(toolChoice.tool);
    if (wanted && !raw.steps.some((step) => resolveTool(tools, step.tool) === wanted)) {
      errors.push({ path: '/steps', message: `must use ${wanted.alias}, the tool the caller chose` });
    }
  }
  return errors;
}
