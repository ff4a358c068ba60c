export { chooseDriver, type Driver, type DriverEnvOf, type DriverOptionsOf, driverEnv, driverNamed, driverNames, driverOptions, driverProblems } from './drivers/driver.kit';
export { ErrorCode, type ErrorDetail, ToolgateError } from './errors/toolgate.errors';
export { canonicalJson, descriptorHash, type ToolDescriptor, toDescriptor } from './manifest/descriptor.hash';
export * from './manifest/manifest.types';
export { SCHEMA_BOUNDS, validateManifest } from './manifest/manifest.validator';
export { SUPPORTED_FORMATS, SUPPORTED_SCHEMA_KEYWORDS } from './manifest/schema-subset.validator';
export { DEFAULT_LIMITS, defineTool } from './manifest/tool.definition';
export { compileToolGlob, toolGlobProblem } from './manifest/tool.glob';
export { formatToolId, NAMESPACE_PATTERN, namespaceOfPackage, parseToolRef, TOOL_NAME_PATTERN } from './manifest/tool.id';
export { CODE_HASH_LIMITS, packageCodeHash } from './plugin/package-code.hash';
export { MAX_TOOLS_PER_PACKAGE, type PluginPackageField, type PluginPackageJson, parsePluginPackageJson, SDK_VERSION } from './plugin/plugin.package';
export {
  type ApprovalStatus,
  RUN_EVENT_TYPES,
  RUN_STATUSES,
  type Run,
  type RunEvent,
  type RunEventType,
  type RunListFilter,
  type RunOwner,
  type RunStatus,
  type RunStep,
  runIdOf,
  type SequencedRunEvent,
  STEP_STATUSES,
  type StepApproval,
  type StepAttempt,
  type StepError,
  type StepStatus,
} from './run/run.types';
export { checkAgainstSchema, compileSchema, type SchemaCheck } from './schema/json-schema.validator';
