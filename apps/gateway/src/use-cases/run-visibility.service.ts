import { Injectable } from '@nestjs/common';
import { RunStore } from '@toolgate/executor';
import { AccessPolicyService, CatalogService, type Principal } from '@toolgate/registry';
import { ErrorCode, type Run, type RunEvent, type RunStep, type SequencedRunEvent, ToolgateError } from '@toolgate/sdk';

/** A step as one caller may see it: `outputWithheld` when it may not read what the step produced. */
export type VisibleStep = RunStep & { outputWithheld: boolean };
export type VisibleRun = Omit<Run, 'steps'> & { steps: VisibleStep[] };

/** Whether the caller may read one step's outputs (by the step's id and the tool@version it ran). */
type StepReader = (step: { id: string; tool: string }) => boolean;

/** What a withheld step's error says instead of its message (which may echo the output). */
export const WITHHELD = 'withheld: only the run owner, its approvers and callers who may execute this tool read its outputs and messages';

const REPLANNED_STEP = /^step (\S+) failed: /;

/**
 * Runs are visible within their tenant only: another tenant's run answers exactly like a missing one.
 * Inside the tenant, a step's outputs (its output, its error and attempt messages, which may echo it)
 * are readable by the run's owner, by callers who may execute the step's tool, and by callers who may
 * approve a step of the run that waits on it (they see what they decide on); others see status only,
 * with `outputWithheld`. Who may approve or cancel a visible run is the runner's rule.
 */
@Injectable()
export class RunVisibility {
  constructor(
    private readonly store: RunStore,
    private readonly catalog: CatalogService,
    private readonly access: AccessPolicyService,
  ) {}

  async find(runId: string, principal: Principal): Promise<Run | null> {
    const run = await this.store.load(runId);
    return run && run.owner.tenant === principal.tenant ? run : null;
  }

  /** The run, or the same INVALID_ARGUMENTS as for a run that does not exist. */
  async require(runId: string, principal: Principal): Promise<Run> {
    const run = await this.find(runId, principal);
    if (!run) throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `no run ${runId}`, [{ path: '/runId', message: 'no such run' }]);
    return run;
  }

  /** The run as the caller may see it (a run of its own tenant). */
  view(run: Run, principal: Principal): VisibleRun {
    return redactRun(run, this.reader(run, principal));
  }

  /** Events of a run as the caller may see them; `run` is the run as loaded when watching began. */
  eventView(run: Run, principal: Principal): (event: SequencedRunEvent) => SequencedRunEvent {
    const read = this.reader(run, principal);
    const tools = new Map(run.steps.map((s) => [s.id, s.tool]));
    return ({ seq, event }) => ({ seq, event: redactEvent(event, 'run' in event ? this.reader(event.run, principal) : read, tools) });
  }

  private reader(run: Run, principal: Principal): StepReader {
    if (run.owner.tenant === principal.tenant && run.owner.subject === principal.subject) return () => true;
    const mayExecute = (ref: string): boolean => {
      const at = ref.lastIndexOf('@');
      const manifest = at > 0 ? this.catalog.manifest(ref.slice(0, at), ref.slice(at + 1)) : undefined;
      return manifest !== undefined && this.access.can(principal, 'execute', ref.slice(0, at), manifest.permissions.risk);
    };
    // An approver (execute on a step that needs approval; not the owner, who is handled above) sees what that step is fed.
    const byId = new Map(run.steps.map((s) => [s.id, s]));
    const fed = new Set<string>();
    for (const step of run.steps) {
      if (!needsApproval(this.catalog, step.tool) || !mayExecute(step.tool)) continue;
      const open = [...step.dependsOn];
      while (open.length > 0) {
        const id = open.pop() as string;
        if (fed.has(id)) continue;
        fed.add(id);
        open.push(...(byId.get(id)?.dependsOn ?? []));
      }
    }
    const decided = new Map<string, boolean>();
    return ({ id, tool }) => {
      const key = `${id}\n${tool}`;
      if (!decided.has(key)) decided.set(key, fed.has(id) || mayExecute(tool));
      return decided.get(key) as boolean;
    };
  }
}

function needsApproval(catalog: CatalogService, ref: string): boolean {
  const at = ref.lastIndexOf('@');
  const manifest = at > 0 ? catalog.manifest(ref.slice(0, at), ref.slice(at + 1)) : undefined;
  return manifest !== undefined && (manifest.permissions.requiresApproval === true || manifest.permissions.risk === 'destructive');
}

function redactStep(step: RunStep, read: StepReader): VisibleStep {
  if (read(step)) return { ...step, outputWithheld: false };
  const { output: _output, reason: _reason, error, ...status } = step;
  return { ...status, ...(error ? { error: { code: error.code, message: WITHHELD, ...(error.path ? { path: error.path } : {}) } } : {}), outputWithheld: true };
}

/** The run's reason quotes the failed step's error message (`step x failed: CODE: message`, or a re-plan's explanation of it). */
function redactRun(run: Run, read: StepReader): VisibleRun {
  const steps = run.steps.map((step) => redactStep(step, read));
  const hidesError = steps.some((step) => step.outputWithheld && step.error);
  if (!hidesError || run.reason === undefined) return { ...run, steps };
  return { ...run, steps, reason: `a step failed (${WITHHELD})` };
}

function redactEvent(event: RunEvent, read: StepReader, tools: ReadonlyMap<string, string>): RunEvent {
  switch (event.type) {
    case 'RUN_STARTED':
    case 'RUN_FINISHED':
      return { ...event, run: redactRun(event.run, read) };
    case 'STEP_FINISHED':
      return { ...event, step: redactStep(event.step, read) };
    case 'ATTEMPT':
      return read({ id: event.stepId, tool: event.tool }) || !event.error ? event : { ...event, error: { ...event.error, message: WITHHELD } };
    case 'STEP_PROGRESS': {
      // A tool's progress message may carry what its output would; the numbers alone do not.
      if (read({ id: event.stepId, tool: event.tool }) || event.message === undefined) return event;
      const { message: _withheld, ...numbers } = event;
      return numbers;
    }
    case 'REPLANNED': {
      const failed = REPLANNED_STEP.exec(event.reason)?.[1] ?? '';
      return read({ id: failed, tool: tools.get(failed) ?? '' }) ? event : { ...event, reason: `a step failed (${WITHHELD})` };
    }
    default:
      return event;
  }
}
