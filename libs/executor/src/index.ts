export type { Run, RunStep, StepStatus } from './run/run.types';
