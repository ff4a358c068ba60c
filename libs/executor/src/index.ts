export type { RunEvent, RunFilter } from './audit/run-event.types';
export { RunEventBus, runIdOf, type SequencedRunEvent } from './audit/run-event-bus';
export { RunRecorder } from './audit/run-recorder.port';
export { TypeormRunRecorder } from './audit/typeorm-run-recorder';
export type { Run, RunOwner, RunStatus, RunStep, StepError, StepStatus } from './run/run.types';
export { type AttemptReport, type Invocation, ToolInvoker } from './runtime/tool-invoker.port';
