import { DEFAULT_LIMITS, type JsonSchema, type ToolDescriptor } from '@toolgate/sdk';
import type { PlanningPrincipal } from '../plan/plan.types';

/** The caller every offline evaluation plans for: it may discover every tool of the set. */
export const EVAL_PRINCIPAL: PlanningPrincipal = { tenant: 'eval', subject: 'eval', roles: [] };
export const ALL_TOOLS = { scope: [{ idGlob: '**', maxRisk: 'destructive' as const }] };

/** The instant relative dates resolve against in evaluations: fixed, so runs compare. */
export const EVAL_REFERENCE_TIME = '2024-01-01T00:00:00Z';

/** A dataset's tool as a read-only server tool: what it says about itself, nothing invented. */
export function datasetDescriptor(tool: { name: string; description: string; category?: string[]; inputSchema: JsonSchema; examples?: readonly string[] }): ToolDescriptor {
  return {
    name: tool.name,
    title: tool.name,
    description: tool.description,
    category: tool.category ?? [],
    tags: [],
    inputSchema: tool.inputSchema,
    outputSchema: { type: 'object' },
    examples: (tool.examples ?? []).map((query) => ({ query, arguments: {} })),
    permissions: { scopes: [], risk: 'read' },
    limits: DEFAULT_LIMITS,
    execution: 'server',
    hasHealthCheck: false,
  };
}

/** What a plan or selection says about its decision: its explanation and question, then each step's or call's reason. */
export function decisionWhy(decided: { explanation?: string; question?: string }, reasons: readonly string[]): string {
  return [decided.explanation, decided.question, ...reasons].filter((part) => part !== undefined && part !== '').join('; ');
}
