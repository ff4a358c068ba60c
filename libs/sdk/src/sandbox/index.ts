/**
 * `@toolgate/sdk/sandbox`: the process plugin code runs in, shared by the gateway (its import process
 * and worker pools) and the testing kit's host mode, so both apply the same rules. For hosts, not for
 * plugin code.
 */

export { type CallSinks, DEFAULT_WORKER_OPTIONS, PluginWorker, type WorkerCode, type WorkerEvents, type WorkerOptions, type WorkerProfile, workerArguments, workerProfile } from './plugin.worker';
export { BUILT_SDK_ENTRY, PERMISSION_FLAG, pluginEntry, pluginEnv, pluginLoadPaths, provideHostSdk } from './plugin-process.policy';
export { TOOL_WORKER_SOURCE } from './tool-worker.main';
export type { AbortRequest, HealthRequest, LoadRequest, RunRequest, SerializedError, WorkerBoot, WorkerReply, WorkerRequest } from './tool-worker.protocol';
