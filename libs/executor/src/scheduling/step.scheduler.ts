import { resolveArguments } from '../validation/argument.guards';
import { now, OPEN, type RunState, type Slot } from './run.state';
import type { StepAttempt } from './step.attempt';

const truncate = (text: string, max = 400) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * Which steps of a run may start: dependents after their dependencies, at most `maxParallel` at once,
 * a step whose dependency did not succeed SKIPPED, a step that needs a person's decision paused.
 */
export class StepScheduler {
  constructor(private readonly steps: StepAttempt) {}

  /** Ends what cannot run any more, asks for approvals, and starts ready steps up to the parallel bound. */
  async settle(state: RunState): Promise<void> {
    for (let changed = true; changed && !state.broken; ) {
      changed = false;
      for (const slot of state.slots) {
        if (!OPEN.has(slot.entry.status)) continue;
        if (await this.advance(state, slot)) changed = true;
      }
    }
    if (state.run.status === 'RUNNING' || state.run.status === 'PENDING_APPROVAL') {
      state.run.status = state.slots.some((s) => s.entry.status === 'PENDING_APPROVAL' && !s.approved) ? 'PENDING_APPROVAL' : 'RUNNING';
    }
  }

  /** One open step: ended, paused, started or left waiting. True when it ended (others may now move). */
  private async advance(state: RunState, slot: Slot): Promise<boolean> {
    const { entry, step } = slot;
    const stop = state.stopReason();
    if (stop) {
      await state.finish(slot, { status: stop.status, tool: entry.tool, reason: stop.reason });
      return true;
    }
    if (state.repair) return false;
    const blocked = step.dependsOn.map((dep) => state.dependency(dep)).find((d) => d.state === 'blocked');
    if (blocked?.state === 'blocked') {
      await state.finish(slot, { status: 'SKIPPED', tool: entry.tool, reason: `dependency ${blocked.id} ended ${blocked.status}` });
      return true;
    }
    if (!step.dependsOn.every((dep) => state.dependency(dep).state === 'done')) return false;
    if (step.tool.requiresApproval && !slot.approved) {
      if (entry.status !== 'PENDING_APPROVAL') await this.requestApproval(state, slot);
      return false;
    }
    if (state.running.size < state.options.maxParallel) this.start(state, slot);
    return false;
  }

  private async requestApproval(state: RunState, slot: Slot): Promise<void> {
    const { tool } = slot.step;
    const args = resolveArguments(slot.step.arguments, (id) => state.outputOf(id), '/arguments');
    const why = tool.manifest.permissions.requiresApproval ? 'requires approval' : `has risk ${tool.risk}`;
    const reason = truncate(`${tool.ref} ${why}; it would run with ${args.ok ? JSON.stringify(args.value) : 'arguments that do not resolve'}`);
    slot.entry.status = 'PENDING_APPROVAL';
    slot.entry.reason = reason;
    await state.record({ type: 'APPROVAL_REQUESTED', at: now(), runId: state.run.id, stepId: slot.entry.id, tool: tool.ref, reason });
  }

  private start(state: RunState, slot: Slot): void {
    slot.entry.status = 'RUNNING';
    const running: Promise<void> = this.steps
      .run(state, slot)
      .catch((error: unknown) => {
        state.broken ??= error;
      })
      .finally(() => state.running.delete(running));
    state.running.add(running);
  }
}
