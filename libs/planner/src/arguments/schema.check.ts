import { compileSchema, type JsonSchema } from '@toolgate/sdk';

/** Top-level argument names whose values the schema refuses (a missing required field is not one). */
export function refusedArguments(inputSchema: JsonSchema, args: Record<string, unknown>): string[] {
  const names = new Set<string>();
  for (const { path } of compileSchema(inputSchema)(args)) {
    const name = path.split('/')[1];
    if (name) names.add(decodeURIComponent(name.replaceAll('~1', '/').replaceAll('~0', '~')));
  }
  return [...names];
}
