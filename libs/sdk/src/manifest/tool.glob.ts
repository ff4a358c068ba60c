import picomatch from 'picomatch';

/**
 * Tool globs: `*` matches within the namespace or the name, `**` matches anything, `?` one character,
 * `{a,b}` alternatives. Kept this small so every index driver can translate it into its own filter.
 */
const GLOB_CHARS = /^[a-z0-9._\-/*?{},]+$/;

/** Returns why `glob` is not a valid tool glob, or null when it is. */
export function toolGlobProblem(glob: unknown): string | null {
  if (typeof glob !== 'string' || glob.length === 0) return 'must be a non-empty glob such as "units/*"';
  if (!GLOB_CHARS.test(glob)) return `"${glob}" has characters outside a-z 0-9 . _ - / * ? { } ,`;
  let depth = 0;
  for (const c of glob) {
    if (c === '{') depth++;
    if (c === '}' && --depth < 0) return `"${glob}" has an unmatched "}"`;
  }
  if (depth !== 0) return `"${glob}" has an unmatched "{"`;
  if (!glob.includes('/') && !glob.includes('**')) return `"${glob}" can match no tool id (ids are namespace/name): did you mean "${glob}/*"?`;
  try {
    picomatch.makeRe(glob, { strictBrackets: true });
  } catch (error) {
    return `"${glob}" is not a valid glob: ${(error as Error).message}`;
  }
  return null;
}

export const compileToolGlob = (glob: string): ((toolId: string) => boolean) => picomatch(glob, { dot: true });
