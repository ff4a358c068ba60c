import { defineTool } from '@toolgate/sdk';
import { type Cell, parseCsv, type Row, SOURCE_PROPERTIES, TABLE_OUTPUT_PROPERTIES } from './table.kit';

export interface ParseCsvArgs {
  csv: string;
  delimiter?: string;
  header?: boolean;
  typed?: boolean;
}

type ColumnType = 'number' | 'string' | 'boolean' | 'empty' | 'mixed';

export interface ParseCsvOutput {
  columns: string[];
  rows: Row[];
  rowCount: number;
  columnTypes: Record<string, ColumnType>;
  warnings: string[];
}

export const parseCsvTool = defineTool<ParseCsvArgs, ParseCsvOutput>({
  name: 'parse-csv',
  title: 'Parse CSV into typed rows',
  description:
    'Parses CSV text (comma, semicolon, tab or pipe separated; quoted fields and multi-line cells supported; delimiter auto-detected) into JSON rows keyed ' +
    'by the header, with numbers and true/false typed, empty cells as null, and the detected type of every column. Use it to read a spreadsheet export ' +
    'or CSV file content into structured data, inspect its columns, or prepare rows for another tool. ' +
    'Do NOT use it to filter, sort or limit rows (use table/filter-sort) or to total, average or count per group (use table/group-by) — those tools ' +
    'accept the CSV directly; for charts use chart/render.',
  category: ['data'],
  tags: ['csv', 'parse csv', 'spreadsheet', 'table', 'tsv', 'json rows', 'columns', 'data import'],
  inputSchema: {
    type: 'object',
    properties: {
      csv: { ...SOURCE_PROPERTIES.csv, description: 'The CSV text to parse.' },
      delimiter: SOURCE_PROPERTIES.delimiter,
      header: { type: 'boolean', default: true, description: 'The first row holds column names (default true); when false columns are named column1, column2...' },
      typed: { type: 'boolean', default: true, description: 'Convert numbers, true/false and empty cells (default true); when false every cell stays text.' },
    },
    required: ['csv'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      ...TABLE_OUTPUT_PROPERTIES,
      columnTypes: {
        type: 'object',
        additionalProperties: { type: 'string', enum: ['number', 'string', 'boolean', 'empty', 'mixed'] },
        description: 'Type of the non-empty values of each column: number, string, boolean, empty (all null) or mixed.',
      },
      warnings: { type: 'array', items: { type: 'string' }, description: 'Rows that were malformed (unclosed quotes, extra fields).' },
    },
    required: ['columns', 'rows', 'rowCount', 'columnTypes', 'warnings'],
    additionalProperties: false,
  },
  examples: [
    {
      query: 'Parse this CSV: name,age,member\\nAna,34,true\\nBo,,false',
      arguments: { csv: 'name,age,member\nAna,34,true\nBo,,false' },
      output: {
        columns: ['name', 'age', 'member'],
        rows: [
          { name: 'Ana', age: 34, member: true },
          { name: 'Bo', age: null, member: false },
        ],
        rowCount: 2,
        columnTypes: { name: 'string', age: 'number', member: 'boolean' },
        warnings: [],
      },
    },
    {
      query: 'Read this semicolon-separated export into rows',
      arguments: { csv: 'product;price;sku\nTea;3.5;007\nCoffee;4;012' },
      output: {
        columns: ['product', 'price', 'sku'],
        rows: [
          { product: 'Tea', price: 3.5, sku: '007' },
          { product: 'Coffee', price: 4, sku: '012' },
        ],
        rowCount: 2,
        columnTypes: { product: 'string', price: 'number', sku: 'string' },
        warnings: [],
      },
    },
  ],
  permissions: { scopes: [], risk: 'read' },
  limits: { timeoutMs: 10_000, maxConcurrency: 8, retries: 0, idempotent: true },
  run(args, ctx) {
    const table = parseCsv(args.csv, args);
    ctx.signal.throwIfAborted();
    const columnTypes = Object.fromEntries(table.columns.map((column) => [column, columnType(table.rows.map((row) => row[column]))]));
    return { columns: table.columns, rows: table.rows, rowCount: table.rows.length, columnTypes, warnings: table.warnings };
  },
});

function columnType(values: Cell[]): ColumnType {
  const types = new Set(values.filter((v) => v !== null).map((v) => typeof v as 'number' | 'string' | 'boolean'));
  if (types.size === 0) return 'empty';
  return types.size === 1 ? [...types][0] : 'mixed';
}
