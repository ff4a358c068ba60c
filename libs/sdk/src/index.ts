export { ErrorCode, type ErrorDetail, ToolgateError } from './errors/toolgate-error';
export { DEFAULT_LIMITS, defineTool } from './manifest/define-tool';
export { canonicalJson, descriptorHash, type ToolDescriptor, toDescriptor } from './manifest/descriptor-hash';
export * from './manifest/manifest.types';
export { assertValidManifest, validateManifest } from './manifest/manifest.validator';
export { checkSchemaSubset, SUPPORTED_FORMATS, SUPPORTED_SCHEMA_KEYWORDS } from './manifest/schema-subset';
export { compileToolGlob, toolGlobProblem } from './manifest/tool-glob';
export { formatToolId, NAMESPACE_PATTERN, namespaceOfPackage, parseToolRef, TOOL_NAME_PATTERN, type ToolRef } from './manifest/tool-id';
export { type PluginPackageField, type PluginPackageJson, parsePluginPackageJson, SDK_VERSION } from './plugin/plugin-package';
