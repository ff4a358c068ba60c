import { ErrorCode, type JsonSchema, ToolgateError } from '@toolgate/sdk';
import Papa from 'papaparse';

export type Cell = string | number | boolean | null;
export type Row = Record<string, Cell>;

export interface Table {
  columns: string[];
  rows: Row[];
}

/** Where a tool's table comes from: CSV text or JSON rows, never both. */
export interface TableSource {
  csv?: string;
  rows?: Row[];
  delimiter?: string;
}

const CELL_TYPES = ['string', 'number', 'boolean', 'null'];
export const MAX_ROWS = 100_000;

export const SOURCE_PROPERTIES: Record<string, JsonSchema> = {
  csv: {
    type: 'string',
    maxLength: 5_000_000,
    description: 'The table as CSV text with a header row (give either csv or rows). Numbers and true/false are typed, empty cells become null.',
  },
  rows: {
    type: 'array',
    maxItems: MAX_ROWS,
    items: { type: 'object', additionalProperties: { type: CELL_TYPES } },
    description: 'The table as JSON objects, one per row, e.g. [{"city": "Paris", "sales": 120}] (give either csv or rows).',
  },
  delimiter: {
    type: 'string',
    minLength: 1,
    maxLength: 1,
    description: 'CSV field delimiter such as "," ";" or a tab; detected automatically when omitted.',
  },
};

export const TABLE_OUTPUT_PROPERTIES: Record<string, JsonSchema> = {
  columns: { type: 'array', items: { type: 'string' }, description: 'Column names in order.' },
  rows: {
    type: 'array',
    items: { type: 'object', additionalProperties: { type: CELL_TYPES } },
    description: 'Result rows as objects keyed by column name.',
  },
  rowCount: { type: 'integer', description: 'Number of rows returned.' },
};

export function invalid(path: string, message: string): ToolgateError {
  return new ToolgateError(ErrorCode.INVALID_ARGUMENTS, message, [{ path, message }]);
}

const NUMBER = /^[-+]?(?:(?:0|[1-9]\d*)(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?$/;

/** Types one CSV field: numbers (but not zero-padded codes such as "007"), booleans, empty -> null. */
export function coerce(field: string): Cell {
  const trimmed = field.trim();
  if (trimmed === '') return null;
  if (NUMBER.test(trimmed)) return Number(trimmed);
  if (/^(true|false)$/i.test(trimmed)) return trimmed.toLowerCase() === 'true';
  return field;
}

export interface ParsedCsv extends Table {
  warnings: string[];
}

export function parseCsv(csv: string, options: { delimiter?: string; header?: boolean; typed?: boolean } = {}): ParsedCsv {
  const parsed = Papa.parse<string[]>(csv, { delimiter: options.delimiter ?? '', skipEmptyLines: 'greedy' });
  const warnings = parsed.errors.map((e) => `row ${(e.row ?? 0) + 1}: ${e.message}`);
  const records = parsed.data;
  if (records.length > MAX_ROWS + 1) throw invalid('/csv', `the CSV has more than ${MAX_ROWS} rows`);
  const width = Math.max(0, ...records.map((r) => r.length));
  const header = options.header === false ? [] : (records.shift() ?? []);
  const columns = uniqueNames(Array.from({ length: options.header === false ? width : header.length }, (_, i) => header[i]?.trim() || `column${i + 1}`));
  const typed = options.typed !== false;
  const rows = records.map((record, r) => {
    if (record.length > columns.length) warnings.push(`row ${r + 1}: ${record.length - columns.length} extra field(s) ignored`);
    return Object.fromEntries(columns.map((column, i) => [column, i < record.length ? (typed ? coerce(record[i]) : record[i]) : null]));
  });
  return { columns, rows, warnings };
}

function uniqueNames(names: string[]): string[] {
  const seen = new Map<string, number>();
  return names.map((name) => {
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    return n === 1 ? name : `${name}_${n}`;
  });
}

/** The table a tool works on: CSV parsed and typed, or JSON rows with columns in order of first appearance. */
export function loadTable(source: TableSource): Table {
  if (source.csv !== undefined && source.rows !== undefined) throw invalid('/rows', 'give either csv or rows, not both');
  if (source.csv !== undefined) return parseCsv(source.csv, { delimiter: source.delimiter });
  if (source.rows === undefined) throw invalid('/csv', 'a table is required: give csv (text) or rows (JSON objects)');
  const columns = new Set<string>();
  for (const row of source.rows) for (const key of Object.keys(row)) columns.add(key);
  const names = [...columns];
  return { columns: names, rows: source.rows.map((row) => Object.fromEntries(names.map((c) => [c, row[c] ?? null]))) };
}

export function requireColumn(table: Table, column: string, path: string): string {
  if (!table.columns.includes(column)) throw invalid(path, `unknown column "${column}" (columns: ${table.columns.join(', ')})`);
  return column;
}

/** A number for numbers and numeric text, undefined otherwise. */
export function toNumber(cell: Cell): number | undefined {
  if (typeof cell === 'number') return cell;
  if (typeof cell === 'string' && NUMBER.test(cell.trim())) return Number(cell.trim());
  return undefined;
}

/** Order for sorting and min/max: numbers (numerically) before text (case-insensitive); callers place nulls. */
export function compareCells(a: Cell, b: Cell): number {
  const x = toNumber(a);
  const y = toNumber(b);
  if (x !== undefined && y !== undefined) return x - y;
  if (x !== undefined) return -1;
  if (y !== undefined) return 1;
  const s = String(a).toLowerCase();
  const t = String(b).toLowerCase();
  return s < t ? -1 : s > t ? 1 : String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

/** Removes binary noise such as 0.1 + 0.2 = 0.30000000000000004. */
export const tidy = (x: number): number => Number(x.toPrecision(15));
