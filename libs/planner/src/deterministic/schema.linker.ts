import type { JsonSchema } from '@toolgate/sdk';
import type { Binding } from '../plan/plan.types';

/** RFC 6901 escaping of one reference token. */
const escapePointerToken = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');

/** `{"$ref": "steps.<id>.output/<json pointer>"}`: the argument takes that part of an earlier step's output. */
export function bindingTo(stepId: string, path: readonly string[]): Binding {
  return { $ref: `steps.${stepId}.output${path.map((t) => `/${escapePointerToken(t)}`).join('')}` };
}

export const isBinding = (value: unknown): value is Binding => typeof value === 'object' && value !== null && typeof (value as Binding).$ref === 'string' && Object.keys(value).length === 1;

/** The step id and JSON pointer of a binding, or null when it is not of the `steps.<id>.output<pointer>` form. */
export function parseBinding(binding: Binding): { step: string; pointer: string } | null {
  const match = /^steps\.([^./]+)\.output(?:\.)?((?:\/[^/]*)*)$/.exec(binding.$ref);
  return match ? { step: match[1], pointer: match[2] } : null;
}

/** Names compared loosely: `flight_id`, `flightId` and `FlightID` are the same field. */
const fieldKey = (name: string) => name.replace(/[_\-\s]/g, '').toLowerCase();

interface FieldSchema {
  type?: unknown;
  format?: unknown;
}

const properties = (schema: JsonSchema | undefined): Record<string, FieldSchema> =>
  schema && typeof schema.properties === 'object' && schema.properties !== null ? (schema.properties as Record<string, FieldSchema>) : {};

/** Same JSON type (or one side untyped), and the same format when both name one. */
function compatible(output: FieldSchema, input: FieldSchema): boolean {
  const types = (s: FieldSchema) => (s.type === undefined ? null : new Set(Array.isArray(s.type) ? s.type : [s.type]));
  const [out, inp] = [types(output), types(input)];
  if (out && inp) {
    const numeric = (set: Set<unknown>) => set.has('number') || set.has('integer');
    if (![...out].some((t) => inp.has(t)) && !(numeric(out) && numeric(inp))) return false;
  }
  return output.format === undefined || input.format === undefined || output.format === input.format;
}

/** A top-level input field of a later step fed by a top-level output field of an earlier one. */
export interface SchemaLink {
  input: string;
  fromStep: string;
  outputPath: string[];
}

/**
 * Links the input fields of a step to the outputs of earlier steps whose schemas declare a compatible
 * field of the same name. The latest earlier producer wins: in a chain the nearest result is the one meant.
 */
export function linkBySchema(inputSchema: JsonSchema, earlier: readonly { id: string; outputSchema: JsonSchema }[], alreadyFilled: ReadonlySet<string>): SchemaLink[] {
  const links: SchemaLink[] = [];
  for (const [input, inputField] of Object.entries(properties(inputSchema))) {
    if (alreadyFilled.has(input)) continue;
    for (let i = earlier.length - 1; i >= 0; i--) {
      const output = Object.entries(properties(earlier[i].outputSchema)).find(([name, field]) => fieldKey(name) === fieldKey(input) && compatible(field, inputField));
      if (output) {
        links.push({ input, fromStep: earlier[i].id, outputPath: [output[0]] });
        break;
      }
    }
  }
  return links;
}
