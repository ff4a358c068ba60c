import { randomUUID } from 'node:crypto';
import { checkAgainstSchema } from '@toolgate/sdk';
import { fillArguments } from '../arguments/argument.filler';
import { isBinding, parseBinding } from '../deterministic/schema.linker';
import type { MissingArgument, Plan, PlanningCandidate, PlanStep, Selection } from '../plan/plan.types';
import type { SessionTurn } from './session.state';

export interface FollowUpContext {
  referenceTime: Date;
  timeZone: string;
}

/**
 * Re-plans the previous turn's calls with what the follow-up text changes ("and to JPY?" after a
 * USD→EUR conversion keeps the amount and the source, replaces the target). Null when the text
 * changes no argument of any call: then it was not a follow-up, and the planner decides afresh.
 * Tools that are no longer candidates for this caller are dropped, never re-granted.
 */
export function planFollowUp(text: string, previous: SessionTurn, candidates: PlanningCandidate[], context: FollowUpContext): { plan: Plan; selection: Omit<Selection, 'candidates'> } | null {
  const steps: PlanStep[] = [];
  const missing: MissingArgument[] = [];
  let changed = false;
  previous.calls.forEach((call, i) => {
    const toolId = call.tool.split('@')[0];
    const candidate = candidates.find((c) => c.id === toolId);
    if (!candidate) return;
    const fill = fillArguments(text, candidate.descriptor.inputSchema, { referenceTime: context.referenceTime, timeZone: context.timeZone });
    const updates = Object.fromEntries(Object.entries(fill.arguments).filter(([field]) => fill.evidence[field] !== undefined));
    if (Object.keys(updates).length > 0) changed = true;
    const args = { ...call.arguments, ...updates };
    const bound = new Set(Object.keys(args).filter((field) => isBinding(args[field])));
    const plain = Object.fromEntries(Object.entries(args).filter(([field]) => !bound.has(field)));
    for (const problem of checkAgainstSchema(candidate.descriptor.inputSchema, plain)) {
      // A required field given by a binding is resolved at execution; ajv reports it at the root.
      const requiredField = /required property '(.+)'/.exec(problem.message)?.[1];
      if (requiredField && bound.has(requiredField)) continue;
      missing.push({ step: `s${i + 1}`, tool: candidate.id, path: requiredField ? `/${requiredField}` : problem.path, description: problem.message });
    }
    const dependsOn = Object.values(args)
      .filter(isBinding)
      .map((binding) => parseBinding(binding)?.step)
      .filter((id, j, all): id is string => id !== undefined && all.indexOf(id) === j);
    steps.push({ id: `s${i + 1}`, tool: `${candidate.id}@${candidate.version}`, arguments: args, dependsOn, reason: `follow-up of "${previous.text.slice(0, 80)}"` });
  });
  if (!changed || steps.length === 0) return null;
  const explanation = `follow-up: reuses ${steps.map((s) => s.tool).join(', ')} from the previous turn with what this message changes`;
  if (missing.length > 0) {
    const question = `Please give: ${missing.map((m) => `${m.path.replace(/^\//, '')} for ${m.tool}`).join('; ')}.`;
    return { plan: { id: randomUUID(), decision: 'CLARIFY', question, missing, steps: [], explanation }, selection: { decision: 'CLARIFY', question, missing, explanation, calls: [] } };
  }
  return {
    plan: { id: randomUUID(), decision: 'USE_TOOLS', steps, explanation },
    selection: { decision: 'USE_TOOLS', explanation, calls: steps.map(({ tool, arguments: args, reason }) => ({ tool, arguments: args, reason })) },
  };
}
