import type { JsonSchema } from '@toolgate/sdk';
import type { ArgumentFill } from './argument-fill.types';
import { nameWords } from './text-span.util';

/** A field in plain words: the first clause of its description, else its name spelled out. */
function plainName(path: string, inputSchema: JsonSchema): string {
  const name = path.split('/').filter(Boolean).at(-1) ?? path;
  const schema = ((inputSchema.properties ?? {}) as Record<string, JsonSchema>)[name];
  const description = typeof schema?.description === 'string' ? schema.description : '';
  const clause = description
    .split(/[.;:(]|,\s*e\.g\.|\s+e\.g\./)[0]
    .replace(/`/g, '')
    .trim();
  const words = clause ? clause.charAt(0).toLowerCase() + clause.slice(1) : nameWords(name).join(' ');
  return `${words} (${name})`;
}

function show(value: unknown): string {
  return typeof value === 'string' ? `"${value}"` : JSON.stringify(value);
}

/** The CLARIFY question for missing/ambiguous fields, naming them in plain words. */
export function clarifyQuestion(toolTitle: string, fill: ArgumentFill, inputSchema: JsonSchema): string | undefined {
  if (fill.missing.length === 0 && fill.ambiguous.length === 0) return undefined;
  const parts: string[] = [];
  if (fill.missing.length > 0) parts.push(`To use ${toolTitle} I need ${listOf(fill.missing.map((m) => plainName(m.path, inputSchema)))}.`);
  for (const entry of fill.ambiguous) {
    parts.push(`Which ${plainName(entry.path, inputSchema).replace(/^(?:the|a|an) /, '')} did you mean: ${listOf(entry.options.map(show), 'or')}?`);
  }
  return parts.join(' ');
}

function listOf(items: string[], last = 'and'): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} ${last} ${items.at(-1)}`;
}
