import type { JsonSchema } from '@toolgate/sdk';
import { contentWords, nameWords, stem } from './text-span.util';

export type FieldKind =
  | 'number'
  | 'boolean'
  | 'enum'
  | 'enum-list'
  | 'string-list'
  | 'number-list'
  | 'operation-list'
  | 'sort-list'
  | 'number-map'
  | 'date'
  | 'zone'
  | 'unit'
  | 'currency'
  | 'url'
  | 'email'
  | 'path'
  | 'expression'
  | 'text'
  | 'other';

export type Role = 'source' | 'target';

export interface SchemaField {
  name: string;
  schema: JsonSchema;
  kind: FieldKind;
  required: boolean;
  hasDefault: boolean;
  /** from/to, start/end, source/target: which side of a pair the field is. */
  role?: Role;
  /** Stemmed words of the name (weight 2) and of the description (weight 1). */
  nameWords: string[];
  /** Name words another field's name has too ("sample" of sample_size and sample_mean): they tell the fields apart less. */
  sharedNameWords: string[];
  descriptionWords: string[];
  /** For dates: the value itself, the words as written, or the context's reference instant. */
  dateStyle?: 'value' | 'phrase' | 'reference';
  /** For zones: the zone dates are written in (source), the one to express them in (target), or neither. */
  zoneRole?: Role | 'neutral';
  /** A free-text field that may hold a long passage (the text to analyse, a CSV, a body). */
  long?: boolean;
}

const typesOf = (schema: JsonSchema): string[] => (Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : []);

function roleOf(name: string, description: string): Role | undefined {
  // "The start of the range", "lower_limit": the low end of a range is its source side, "upper_limit" its target.
  if (
    /^(?:from|source|start|begin|initial|since|src|base|original|lower|check_?in|checkIn)(?:[A-Z_]|$)/.test(name) ||
    /^(?:source|start|unit of the value|zone the \w+ is written)/i.test(description) ||
    /^the (?:start|beginning|lower (?:bound|limit|end)) of\b/i.test(description)
  )
    return 'source';
  if (
    /^(?:to|target|end|until|dest|destination|final|upper|check_?out|checkOut)(?:[A-Z_]|$)/.test(name) ||
    /^(?:target|end\b|unit to convert to|zone to express)/i.test(description) ||
    /^the (?:end|upper (?:bound|limit|end)) of\b/i.test(description)
  )
    return 'target';
  // "The currency to convert from." / "… to convert to.": the description says the side when the name does not.
  const from = /\bconvert(?:ed)? from\b/i.test(description);
  const to = /\bconvert(?:ed)? (?:to|into)\b/i.test(description);
  return from === to ? undefined : from ? 'source' : 'target';
}

/** A name for a date or a time: its last word is one (start_time, eventDate) or it is "date of …" (date_of_birth); not time_signature or time_period. */
function namesInstant(name: string): boolean {
  const words = nameWords(name);
  const instant = (w: string | undefined) => w !== undefined && /^(?:date|dates|time|times|datetime|timestamp|dob)$/.test(w);
  return instant(words.at(-1)) || (instant(words[0]) && words[1] === 'of');
}

function stringKind(name: string, schema: JsonSchema, description: string): FieldKind {
  const format = schema.format;
  const lowerName = name.toLowerCase();
  // "a username, phone number, or email address" takes any of them: an address is one choice, not the kind.
  const emailAmongOthers = /(?:,|\bor)\s+(?:an?\s+)?e-?mail address|e-?mail address(?:es)?\s+or\b/i.test(description) && !/\S@\S+\.\w/.test(description);
  if (format === 'email' || /e-?mail/.test(lowerName) || (/\be-?mail address/i.test(description) && !emailAmongOthers)) return 'email';
  if (format === 'uri' || /(?:^|_)(?:url|uri|link|endpoint|href)$/.test(lowerName) || /\burl\b/i.test(lowerName)) return 'url';
  if (format === 'date' || format === 'date-time' || format === 'time') return 'date';
  if (/time_?zone|(?:^|[a-z])Zone$|^zone$|^tz$/i.test(name) || /\bIANA time zone\b/i.test(description)) return 'zone';
  if (/\bcurrency\b|ISO 4217/i.test(description) || /currency/.test(lowerName)) return 'currency';
  if (/\bunit\b/i.test(description) && !/\bunits\b/i.test(lowerName)) return 'unit';
  if (/^text containing (?:a |the )?(?:date|time)/i.test(description)) return 'date';
  if (namesInstant(name) || /^(?:start |end )?date\b|\bdate or date-time\b|\bdate and time\b/i.test(description)) return 'date';
  // "Arrival day, YYYY-MM-DD": a description that states a date format asks for a date.
  if (/\b(?:yyyy[-/.]mm[-/.]dd|mm[-/.]dd[-/.]yyyy|dd[-/.]mm[-/.]yyyy)\b/i.test(description)) return 'date';
  if (/(?:^|[a-z_])(?:path|file|filename|folder|dir|directory)$/i.test(name) || /^(?:the\s+)?(?:path|folder|file|directory)\b/i.test(description)) return 'path';
  // "function: The polynomial function.", "equation": a formula written in the text ("3x^2 + 2x - 1").
  if (/expression|formula/i.test(name) || /^expression\b/i.test(description) || (/^(?:function|func|equation|polynomial)$/i.test(name) && /\b(?:function|equation|polynomial)\b/i.test(description)))
    return 'expression';
  return 'text';
}

const TRUE_WORDS = /^(?:true|yes)$/i;
const FALSE_WORDS = /^(?:false|no)$/i;

/**
 * The values an enum of yes and no in words takes for on and off ("True" / "False" beside "dontcare"): such a field is
 * a flag. Undefined for any other enum.
 */
export function flagValues(schema: JsonSchema): { on: unknown; off: unknown } | undefined {
  const values = Array.isArray(schema.enum) ? schema.enum : [];
  const on = values.find((v) => typeof v === 'string' && TRUE_WORDS.test(v));
  const off = values.find((v) => typeof v === 'string' && FALSE_WORDS.test(v));
  const others = values.filter((v) => v !== on && v !== off);
  return on !== undefined && off !== undefined && others.every((v) => typeof v === 'string' && /^(?:dont ?care|any|either|none|unknown|)$/i.test(v)) ? { on, off } : undefined;
}

function kindOf(name: string, schema: JsonSchema): FieldKind {
  const description = typeof schema.description === 'string' ? schema.description : '';
  const types = typesOf(schema);
  if (Array.isArray(schema.enum)) {
    if (flagValues(schema)) return 'boolean';
    // A zone field that lists the zones it takes ("Asia/Tokyo", "Europe/London") reads zones as any zone field does.
    const zones = schema.enum.every((v) => typeof v === 'string' && (/^[A-Z][A-Za-z_]+\/[A-Za-z_/]+$/.test(v) || v === 'UTC'));
    return zones && stringKind(name, {}, description) === 'zone' ? 'zone' : 'enum';
  }
  if (types.includes('array')) {
    const items = (schema.items ?? {}) as JsonSchema;
    if (Array.isArray(items.enum)) return 'enum-list';
    if (typesOf(items).includes('string')) return 'string-list';
    if (typesOf(items).length > 0 && typesOf(items).every((t) => t === 'number' || t === 'integer')) return 'number-list';
    if (operationItem(items)) return 'operation-list';
    return sortItem(items) ? 'sort-list' : 'other';
  }
  if (types.includes('object')) {
    const extra = schema.additionalProperties as JsonSchema | undefined;
    return extra && typeof extra === 'object' && typesOf(extra).some((t) => t === 'number' || t === 'integer') ? 'number-map' : 'other';
  }
  if (types.length === 1 && (types[0] === 'number' || types[0] === 'integer')) return 'number';
  if (types.length === 1 && types[0] === 'boolean') return 'boolean';
  if (types.length === 1 && types[0] === 'string') return stringKind(name, schema, description);
  return 'other';
}

/** Items like `{column, direction: asc|desc}`: a sort key. */
export function sortItem(items: JsonSchema): { column: string; direction?: string } | undefined {
  const properties = (items.properties ?? {}) as Record<string, JsonSchema>;
  const column = Object.keys(properties).find((k) => /column|field|key/i.test(k) && typesOf(properties[k]).includes('string'));
  const direction = Object.keys(properties).find((k) => Array.isArray(properties[k].enum) && (properties[k].enum as unknown[]).includes('asc'));
  return column ? { column, direction } : undefined;
}

/**
 * Items like `{op: sum|avg|..., column}`: a required enum (the operation) and string operands, nothing
 * else. "sum the sales, average price" reads as operation-then-operand.
 */
export function operationItem(items: JsonSchema): { operation: string; operand?: string } | undefined {
  const properties = (items.properties ?? {}) as Record<string, JsonSchema>;
  const required = Array.isArray(items.required) ? (items.required as string[]) : [];
  const enums = Object.keys(properties).filter((k) => Array.isArray(properties[k].enum));
  if (enums.length !== 1 || !required.includes(enums[0])) return undefined;
  const others = Object.keys(properties).filter((k) => k !== enums[0]);
  if (others.some((k) => !typesOf(properties[k]).every((t) => t === 'string'))) return undefined;
  const operand = others.find((k) => !required.includes(k) || others.length === 1) ?? others[0];
  return { operation: enums[0], operand: others.length > 0 ? (others.find((k) => /column|field|key|name/i.test(k)) ?? operand) : undefined };
}

const SHORT_VALUE_NAME =
  /name|title|phone|company|organi[sz]ation|label|code|city|country|language|locale|format|type|mode|status|category|genre|region|location|state$|colou?r|unit|currency|id$|Id$/i;

/** What a numbered field is one of: "species" for species1 and species_b, "team" for team_first. */
/** The name a numbered field shares with its siblings: `city` for city_1 and city_2, `species` for species_a. */
export const familyOfName = (name: string) => name.replace(/(?:_?(?:\d+|[ab]|first|second|one|two))$/i, '');
export const fieldFamily = (field: SchemaField) => familyOfName(field.name);

/** The top-level fields of a tool's input schema, each with what kind of value it wants. */
export function schemaFields(inputSchema: JsonSchema): SchemaField[] {
  const properties = (inputSchema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(inputSchema.required) ? (inputSchema.required as string[]) : []);
  const fields = Object.entries(properties).map(([name, schema]) => {
    const description = typeof schema.description === 'string' ? schema.description : '';
    const kind = kindOf(name, schema);
    const field: SchemaField = {
      name,
      schema,
      kind,
      required: required.has(name),
      hasDefault: schema.default !== undefined,
      role: roleOf(name, description),
      nameWords: nameWords(name).map(stem),
      sharedNameWords: [],
      descriptionWords: contentWords(description),
      // A name, title or phone number is short even when the schema sets no bound (SEAL-style schemas set none).
      long: kind === 'text' && (typeof schema.maxLength === 'number' ? schema.maxLength >= 1000 : !SHORT_VALUE_NAME.test(name)),
    };
    if (kind === 'date') {
      field.dateStyle = /^text\b|\bphrase\b/i.test(description)
        ? 'phrase'
        : schema.format === 'date-time' && /"now"|resolved against|reference/i.test(`${name} ${description}`)
          ? 'reference'
          : 'value';
    }
    if (kind === 'zone') {
      field.zoneRole = /^from/.test(name) || /written in|meant in|without an offset/i.test(description) ? 'source' : /^to/.test(name) || /express/i.test(description) ? 'target' : 'neutral';
    }
    return field;
  });
  for (const field of fields) field.sharedNameWords = field.nameWords.filter((w) => fields.some((other) => other !== field && other.nameWords.includes(w)));
  return fields;
}

/** "Default is 52.", "defaults to 'grams/mole'", "default: true": a default the description states. */
const STATED_DEFAULT = /\bdefaults?\s*(?:value\s*)?(?:is|:|=|to|of)?\s*(?:'([^'\n]*)'|"([^"\n]*)"|(-?\d+(?:\.\d+)?)(?![\w.-]*\d)|(true|false)\b)/i;

/**
 * The default a required field's description states, as a value its schema takes: a number for a number
 * field, a boolean for a boolean one, a quoted string (or an enum member) for a string one. A default
 * told only in words ("today", "all fields") is no value.
 */
export function statedDefault(field: SchemaField): unknown {
  const description = typeof field.schema.description === 'string' ? field.schema.description : '';
  const m = STATED_DEFAULT.exec(description);
  if (!m) return undefined;
  const [, single, double, number, flag] = m;
  const types = typesOf(field.schema);
  const enumeration = Array.isArray(field.schema.enum) ? field.schema.enum : undefined;
  if (number !== undefined && (types.includes('integer') ? Number.isInteger(Number(number)) : types.includes('number'))) return Number(number);
  if (flag !== undefined && types.includes('boolean')) return flag.toLowerCase() === 'true';
  const quoted = single ?? double;
  if (quoted !== undefined && types.includes('string') && (!enumeration || enumeration.includes(quoted))) return quoted;
  return undefined;
}

/**
 * The codes a field's description gives for words ("'asc' for ascending", "'c' for Celsius", "'M' means male"): the
 * first word each code stands for, lower-cased, to the code.
 */
export function describedCodes(field: SchemaField): Map<string, string> {
  const description = typeof field.schema.description === 'string' ? field.schema.description : '';
  const codes = new Map<string, string>();
  for (const m of description.matchAll(/['"‘“]([^'"’”]{1,20})['"’”]\s+(?:for|means|meaning|=)\s+([A-Za-z][A-Za-z-]*)/g)) codes.set(m[2].toLowerCase(), m[1]);
  return codes;
}

/** A field that holds an identifier (…_id, number, code, docket): its values are codes, never plain words. */
export const holdsIdentifier = (field: SchemaField): boolean => /^(?:id|ids|number|no|code|docket|reference|ref|serial|sku|isbn|identifier)$/.test(field.nameWords.at(-1) ?? '');

/** The string values a property allows (its `enum`), as words the tool speaks of: "Electropop", "BURGER", "fahrenheit". */
export const allowedWords = (property: { enum?: unknown } | undefined): string[] => (Array.isArray(property?.enum) ? property.enum.filter((v): v is string => typeof v === 'string') : []);
