import { ErrorCode, ToolgateError } from '../errors/toolgate.errors';

/** Tool names and namespaces: lowercase, digits, `-`, `_`, `.`; what follows the first character. */
export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_-]{0,63}$/;
export const NAMESPACE_PATTERN = /^[a-z0-9][a-z0-9._-]{0,127}$/;

export interface ToolRef {
  /** Absent for a bare `name`, which the registry resolves (or reports as ambiguous). */
  namespace?: string;
  name: string;
  /** Absent means the caller's active version. */
  version?: string;
}

export const formatToolId = (namespace: string, name: string): string => `${namespace}/${name}`;

/** The namespace a plugin package gets: its npm name without the scope. */
export const namespaceOfPackage = (packageName: string): string => packageName.replace(/^@[^/]+\//, '');

/** Parses `namespace/name@version`, `namespace/name` or a bare `name`. */
export function parseToolRef(ref: string): ToolRef {
  const match = /^(?:([^/@\s]+)\/)?([^/@\s]+)(?:@([^\s@]+))?$/.exec(ref.trim());
  if (!match) {
    throw new ToolgateError(ErrorCode.TOOL_NOT_FOUND, `"${ref}" is not a tool reference (expected namespace/name[@version])`, [{ path: '', message: 'malformed tool reference' }]);
  }
  const [, namespace, name, version] = match;
  return { namespace, name, version };
}
