import semver from 'semver';
import { ErrorCode, type ErrorDetail, ToolgateError } from '../errors/toolgate.errors';
import { NAMESPACE_PATTERN, namespaceOfPackage } from '../manifest/tool.id';

/** Version of this contract; a plugin's `toolgate.sdk` range must include it. */
export const SDK_VERSION = '0.1.0';

/** The `toolgate` field of a plugin's package.json. */
export interface PluginPackageField {
  /** semver range of `@toolgate/sdk` the plugin was written against. */
  sdk: string;
  /** Entry module, relative to the package root, whose exports hold the tools. */
  tools: string;
  /** Environment variables the plugin's workers receive from the host; a worker sees no other variable. */
  env?: string[];
  /**
   * The package loads native addons (e.g. a canvas binding). Native code is beyond Node's permission
   * model, so this trusts the package as much as a tool that may start processes; the operator sees it.
   */
  addons?: boolean;
}

/** Most tools one package may ship: a catalog entry costs every search and every load. */
export const MAX_TOOLS_PER_PACKAGE = 256;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface PluginPackageJson {
  name: string;
  version: string;
  description?: string;
  toolgate: PluginPackageField;
}

const NPM_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;

/** Validates a plugin's package.json; throws `PLUGIN_INVALID` with every offending field. */
export function parsePluginPackageJson(raw: unknown, hostSdkVersion = SDK_VERSION): PluginPackageJson {
  const issues: ErrorDetail[] = [];
  const pkg = (raw ?? {}) as Record<string, unknown>;
  if (typeof pkg.name !== 'string' || !NPM_NAME.test(pkg.name) || pkg.name.length > 214) {
    issues.push({ path: '/name', message: 'must be a valid npm package name' });
  } else if (!NAMESPACE_PATTERN.test(namespaceOfPackage(pkg.name))) {
    issues.push({ path: '/name', message: `"${namespaceOfPackage(pkg.name)}" is not a valid tool namespace` });
  }
  if (typeof pkg.version !== 'string' || semver.valid(pkg.version) === null) {
    issues.push({ path: '/version', message: `must be a semver version, got ${JSON.stringify(pkg.version)}` });
  }
  const field = pkg.toolgate as Record<string, unknown> | undefined;
  if (field === null || typeof field !== 'object') {
    issues.push({ path: '/toolgate', message: 'must be an object {sdk, tools}' });
  } else {
    if (typeof field.sdk !== 'string' || semver.validRange(field.sdk) === null) {
      issues.push({ path: '/toolgate/sdk', message: `must be a semver range, got ${JSON.stringify(field.sdk)}` });
    } else if (!semver.satisfies(hostSdkVersion, field.sdk)) {
      issues.push({ path: '/toolgate/sdk', message: `range "${field.sdk}" does not include this host's sdk ${hostSdkVersion}` });
    }
    if (typeof field.tools !== 'string' || field.tools.length === 0) {
      issues.push({ path: '/toolgate/tools', message: 'must name the entry module that exports the tools' });
    }
    if (field.addons !== undefined && typeof field.addons !== 'boolean') issues.push({ path: '/toolgate/addons', message: 'must be true or false' });
    if (field.env !== undefined) {
      if (!Array.isArray(field.env) || field.env.length > 64) issues.push({ path: '/toolgate/env', message: 'must be an array of at most 64 environment variable names' });
      else
        field.env.forEach((name, i) => {
          if (typeof name !== 'string' || !ENV_NAME.test(name)) issues.push({ path: `/toolgate/env/${i}`, message: `must be an environment variable name, got ${JSON.stringify(name)}` });
        });
    }
  }
  if (issues.length > 0) {
    throw new ToolgateError(ErrorCode.PLUGIN_INVALID, `package.json of plugin ${typeof pkg.name === 'string' ? pkg.name : '(unnamed)'} is invalid`, issues);
  }
  return pkg as unknown as PluginPackageJson;
}
