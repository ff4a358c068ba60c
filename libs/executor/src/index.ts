export type { RunEvent, RunFilter } from './audit/run-event.types';
export { RunRecorder } from './audit/run-recorder.port';
export type { Run, RunOwner, RunStatus, RunStep, StepError, StepStatus } from './run/run.types';
export { type AttemptReport, type Invocation, ToolInvoker } from './runtime/tool-invoker.port';
