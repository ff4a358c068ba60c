import { Injectable } from '@nestjs/common';
import type { Plan } from '@toolgate/planner';
import { AccessPolicyService, CatalogService, type Principal, ToolVersionState } from '@toolgate/registry';
import { ErrorCode, type ErrorDetail, type Risk, ToolgateError, type ToolManifest } from '@toolgate/sdk';
import { ExecutionRoutes } from '../routing/execution.routes';
import { toToolgateError } from '../runtime/tool.errors';
import { type ArgumentBinding, collectBindings, forbiddenKeys, schemaAdmits, underBinding } from './argument.guards';
import { assertExecutable } from './plan-decision.validator';
import { SchemaCache } from './schema.cache';

/** A tool reference pinned to one loaded version the principal may execute. */
export interface ResolvedTool {
  toolId: string;
  version: string;
  /** `namespace/name@version`. */
  ref: string;
  risk: Risk;
  manifest: ToolManifest;
  /** `permissions.requiresApproval` or `risk: destructive`: a person decides before it runs. */
  requiresApproval: boolean;
  /** The hash of the package code the version loaded (npm plugins), which the audit records for each attempt. */
  codeHash: string | null;
}

export interface ValidatedStep {
  id: string;
  /** Position in the plan (for JSON pointers). */
  index: number;
  /** What the plan named (`tool` or `tool@version`). */
  requested: string;
  tool: ResolvedTool;
  arguments: Record<string, unknown>;
  dependsOn: string[];
  reason: string;
  bindings: ArgumentBinding[];
}

export interface ValidatedPlan {
  plan: Plan;
  /** In plan order. */
  steps: ValidatedStep[];
}

export interface PlanLimits {
  /** Most steps one plan may have. */
  maxSteps: number;
  /** Optional cost budget: the summed cost of the plan's tools may not exceed `max`. */
  cost?: { max: number; of: (tool: ResolvedTool) => number };
}

const STEP_ID = /^[^./\s]+$/;
const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

interface Problem extends ErrorDetail {
  code: ErrorCode;
}

/** What is wrong with a plan, in the order the checks find it (the order the error reports it). */
class Problems {
  readonly list: Problem[] = [];

  add(code: ErrorCode, path: string, message: string): void {
    this.list.push({ code, path, message });
  }

  /** One error for all of them: their code when they share one, INVALID_PLAN otherwise. */
  throwIfAny(plan: Plan): void {
    if (this.list.length === 0) return;
    const codes = new Set(this.list.map((p) => p.code));
    const code = codes.size === 1 ? this.list[0].code : ErrorCode.INVALID_PLAN;
    throw new ToolgateError(
      code,
      `plan ${typeof plan.id === 'string' ? plan.id : '(without id)'} cannot run: ${this.list.length} problem${this.list.length === 1 ? '' : 's'} (${[...codes].join(', ')})`,
      this.list.map(({ path, message }) => ({ path, message })),
    );
  }
}

/** The dependency graph as far as it is valid: step index by id, and each step's transitive dependencies. */
interface StepGraph {
  ids: Map<string, number>;
  ancestors: Set<number>[];
}

/**
 * Checks a plan before anything runs, against the catalog and the principal's grants as they are now
 * (nothing is trusted from planning). A plan whose decision is not USE_TOOLS is refused first, with the
 * decision's own error (`assertExecutable`); otherwise: tools visible and pinned to one version,
 * `execute` allowed at the tool's risk, arguments valid against that version's schema, bindings pointing
 * to earlier steps' outputs, ids unique, the graph acyclic, step and cost budgets kept. Reports every
 * such problem at once.
 */
@Injectable()
export class PlanValidator {
  constructor(
    private readonly catalog: CatalogService,
    private readonly access: AccessPolicyService,
    private readonly schemas: SchemaCache,
    private readonly routes: ExecutionRoutes,
  ) {}

  validate(plan: Plan, principal: Principal, limits: PlanLimits): ValidatedPlan {
    if (!isRecord(plan) || !Array.isArray(plan.steps)) {
      throw new ToolgateError(ErrorCode.INVALID_PLAN, 'a plan is an object with a steps array', [{ path: '/steps', message: 'must be an array' }]);
    }
    assertExecutable(plan);
    const problems = new Problems();
    if (plan.steps.length === 0) problems.add(ErrorCode.INVALID_PLAN, '/steps', 'has no steps');
    if (plan.steps.length > limits.maxSteps) problems.add(ErrorCode.BUDGET_EXCEEDED, '/steps', `has ${plan.steps.length} steps; at most ${limits.maxSteps} may run in one plan`);
    const graph = checkGraph(plan, checkIds(plan, problems), problems);
    const resolved = this.resolveSteps(plan, principal, problems);
    const steps = this.checkStepArguments(plan, graph, resolved, problems);
    // The cost is only meaningful for a plan that could otherwise run.
    if (limits.cost && problems.list.length === 0) checkCost(steps, limits.cost, problems);
    problems.throwIfAny(plan);
    return { plan, steps };
  }

  /** Each step's tool pinned and authorized (null where it is not; the reason is a problem at `/steps/<i>/tool`). */
  private resolveSteps(plan: Plan, principal: Principal, problems: Problems): (ResolvedTool | null)[] {
    return plan.steps.map((step, i): ResolvedTool | null => {
      if (!isRecord(step)) return null;
      if (typeof step.tool !== 'string' || step.tool.length === 0) {
        problems.add(ErrorCode.INVALID_PLAN, `/steps/${i}/tool`, 'must name a tool (namespace/name or namespace/name@version)');
        return null;
      }
      try {
        return this.resolveTool(step.tool, principal);
      } catch (error) {
        const typed = toToolgateError(error);
        problems.add(typed.code, `/steps/${i}/tool`, typed.message);
        return null;
      }
    });
  }

  /** Each step's arguments: an object without forbidden keys, bindings to steps it depends on, valid for the pinned input schema. */
  private checkStepArguments(plan: Plan, graph: StepGraph, resolved: (ResolvedTool | null)[], problems: Problems): ValidatedStep[] {
    const steps: ValidatedStep[] = [];
    plan.steps.forEach((step, i) => {
      if (!isRecord(step)) return;
      const prefix = `/steps/${i}/arguments`;
      if (!isRecord(step.arguments)) {
        problems.add(ErrorCode.INVALID_PLAN, prefix, 'must be an object');
        return;
      }
      const polluted = forbiddenKeys(step.arguments, prefix);
      for (const p of polluted) problems.add(ErrorCode.INVALID_ARGUMENTS, p.path, p.message);
      const bindings = collectBindings(step.arguments);
      checkBindings(i, prefix, bindings, graph, resolved, problems);
      const tool = resolved[i];
      if (!tool || polluted.length > 0) return;
      for (const p of this.schemas.check(tool.ref, 'input', tool.manifest.inputSchema, step.arguments, prefix)) {
        // A bound value is known only at run time, where it is checked after resolution.
        if (!underBinding(p.path.slice(prefix.length), bindings)) problems.add(ErrorCode.INVALID_ARGUMENTS, p.path, p.message);
      }
      steps.push({
        id: step.id as string,
        index: i,
        requested: step.tool as string,
        tool,
        arguments: step.arguments,
        dependsOn: [...(step.dependsOn as string[])],
        reason: typeof step.reason === 'string' ? step.reason : '',
        bindings,
      });
    });
    return steps;
  }

  /**
   * Pins a reference to one version and checks it may run for the principal now. A tool it may not
   * discover is TOOL_NOT_FOUND exactly like a missing one; one it sees but may not execute is FORBIDDEN.
   */
  resolveTool(ref: string, principal: Principal): ResolvedTool {
    const { tool, version } = this.catalog.resolve(ref, principal);
    const pinned = `${tool.id}@${version.version}`;
    const manifest = this.catalog.manifest(tool.id, version.version);
    if (version.state === ToolVersionState.DISABLED) {
      throw new ToolgateError(ErrorCode.UNAVAILABLE, `tool ${pinned} is disabled${version.stateReason ? ` (${version.stateReason})` : ''}`);
    }
    if (!manifest) throw new ToolgateError(ErrorCode.UNAVAILABLE, `tool ${pinned} is not loaded in this process`);
    if (!this.routes.runs(manifest)) {
      const who = manifest.execution === 'client' ? 'the caller runs it, not Toolgate' : `no ${manifest.execution} route is configured on this server`;
      throw new ToolgateError(ErrorCode.INVALID_PLAN, `tool ${pinned} runs with execution "${manifest.execution}": ${who}`);
    }
    if (!this.access.can(principal, 'execute', tool.id, version.risk)) {
      throw new ToolgateError(ErrorCode.FORBIDDEN, `may not execute ${tool.id} (risk ${version.risk})`);
    }
    return {
      toolId: tool.id,
      version: version.version,
      ref: pinned,
      risk: version.risk,
      manifest,
      requiresApproval: manifest.permissions.requiresApproval === true || version.risk === 'destructive',
      codeHash: this.catalog.packageCode(tool.id, version.version)?.hash ?? null,
    };
  }

  /** Right before a call: the pinned version must still be visible, enabled, loaded and executable for the principal. */
  recheck(tool: ResolvedTool, principal: Principal): void {
    this.resolveTool(tool.ref, principal);
  }

  /** Arguments (bindings already resolved) against the pinned input schema. */
  checkArguments(tool: ResolvedTool, args: Record<string, unknown>, prefix = '/arguments'): ErrorDetail[] {
    return this.schemas.check(tool.ref, 'input', tool.manifest.inputSchema, args, prefix);
  }

  checkOutput(tool: ResolvedTool, output: unknown, prefix = '/output'): ErrorDetail[] {
    return this.schemas.check(tool.ref, 'output', tool.manifest.outputSchema, output, prefix);
  }
}

/** Step ids well-formed and unique; returns the index of each valid id. */
function checkIds(plan: Plan, problems: Problems): Map<string, number> {
  const ids = new Map<string, number>();
  plan.steps.forEach((step, i) => {
    if (!isRecord(step)) {
      problems.add(ErrorCode.INVALID_PLAN, `/steps/${i}`, 'must be a step object');
      return;
    }
    if (typeof step.id !== 'string' || !STEP_ID.test(step.id)) problems.add(ErrorCode.INVALID_PLAN, `/steps/${i}/id`, 'must be a non-empty id without ".", "/" or spaces');
    else if (ids.has(step.id)) problems.add(ErrorCode.INVALID_PLAN, `/steps/${i}/id`, `duplicates the id of /steps/${ids.get(step.id)}`);
    else ids.set(step.id, i);
  });
  return ids;
}

/** `dependsOn` naming other steps of the plan, and no cycle; the graph keeps only the valid edges. */
function checkGraph(plan: Plan, ids: Map<string, number>, problems: Problems): StepGraph {
  plan.steps.forEach((step, i) => {
    if (!isRecord(step)) return;
    if (!Array.isArray(step.dependsOn)) {
      problems.add(ErrorCode.INVALID_PLAN, `/steps/${i}/dependsOn`, 'must be an array of step ids');
      return;
    }
    step.dependsOn.forEach((dep: unknown, j: number) => {
      if (typeof dep !== 'string' || !ids.has(dep)) problems.add(ErrorCode.INVALID_PLAN, `/steps/${i}/dependsOn/${j}`, `names no step of this plan: ${JSON.stringify(dep)}`);
      else if (dep === step.id) problems.add(ErrorCode.INVALID_PLAN, `/steps/${i}/dependsOn/${j}`, 'a step cannot depend on itself');
    });
  });
  const depsOf = (i: number): string[] => {
    const deps = (plan.steps[i] as { dependsOn?: unknown }).dependsOn;
    return Array.isArray(deps) ? deps.filter((d): d is string => typeof d === 'string' && ids.has(d)) : [];
  };
  const edges = plan.steps.map((_, i) => depsOf(i).map((d) => ids.get(d) as number));
  const cycle = findCycle(edges);
  if (cycle) problems.add(ErrorCode.INVALID_PLAN, `/steps/${cycle[0]}/dependsOn`, `the steps form a cycle: ${cycle.map((i) => plan.steps[i].id).join(' -> ')} -> ${plan.steps[cycle[0]].id}`);
  return { ids, ancestors: plan.steps.map((_, i) => ancestorsOf(i, edges)) };
}

/** A binding must have the binding form, point to a step this one depends on, and to a part of its output the output schema allows. */
function checkBindings(step: number, prefix: string, bindings: ArgumentBinding[], graph: StepGraph, resolved: (ResolvedTool | null)[], problems: Problems): void {
  for (const binding of bindings) {
    const path = `${prefix}${binding.path}`;
    if (!binding.target) {
      problems.add(ErrorCode.INVALID_PLAN, path, `${JSON.stringify(binding.ref)} is not a binding of the form steps.<id>.output/<json pointer>`);
      continue;
    }
    const source = graph.ids.get(binding.target.step);
    if (source === undefined || !graph.ancestors[step].has(source)) {
      problems.add(ErrorCode.INVALID_PLAN, path, `binds to step ${JSON.stringify(binding.target.step)}, which this step does not depend on (directly or through dependsOn)`);
      continue;
    }
    const sourceTool = resolved[source];
    if (sourceTool && !schemaAdmits(sourceTool.manifest.outputSchema, binding.target.pointer)) {
      problems.add(ErrorCode.INVALID_PLAN, path, `binds to ${binding.target.pointer || '/'} of step ${binding.target.step}'s output, which the output schema of ${sourceTool.ref} rules out`);
    }
  }
}

function checkCost(steps: ValidatedStep[], budget: NonNullable<PlanLimits['cost']>, problems: Problems): void {
  const cost = steps.reduce((sum, s) => sum + budget.of(s.tool), 0);
  if (cost > budget.max) problems.add(ErrorCode.BUDGET_EXCEEDED, '/steps', `costs ${cost}; the budget is ${budget.max}`);
}

/** One cycle of the dependency graph (step indexes in order), or null. */
function findCycle(edges: number[][]): number[] | null {
  const state = new Array<0 | 1 | 2>(edges.length).fill(0);
  const stack: number[] = [];
  const visit = (node: number): number[] | null => {
    state[node] = 1;
    stack.push(node);
    for (const next of edges[node]) {
      if (state[next] === 1) return stack.slice(stack.indexOf(next));
      if (state[next] === 0) {
        const found = visit(next);
        if (found) return found;
      }
    }
    stack.pop();
    state[node] = 2;
    return null;
  };
  for (let i = 0; i < edges.length; i++) {
    if (state[i] === 0) {
      const found = visit(i);
      if (found) return found;
    }
  }
  return null;
}

/** Every step a step depends on, directly or through its dependencies. */
function ancestorsOf(start: number, edges: number[][]): Set<number> {
  const seen = new Set<number>();
  const queue = [start];
  while (queue.length > 0) {
    for (const dep of edges[queue.pop() as number]) {
      if (!seen.has(dep)) {
        seen.add(dep);
        queue.push(dep);
      }
    }
  }
  return seen;
}
