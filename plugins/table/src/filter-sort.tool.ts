import { defineTool } from '@toolgate/sdk';
import { type Cell, compareCells, invalid, loadTable, type Row, requireColumn, SOURCE_PROPERTIES, TABLE_OUTPUT_PROPERTIES, type TableSource, toNumber } from './table.kit';

const OPS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'contains', 'not_contains', 'starts_with', 'ends_with', 'in', 'not_in', 'is_null', 'not_null'] as const;
type Op = (typeof OPS)[number];
const UNARY: readonly Op[] = ['is_null', 'not_null'];
const LIST: readonly Op[] = ['in', 'not_in'];

export interface Condition {
  column: string;
  op: Op;
  value?: Cell | Cell[];
}

export interface FilterSortArgs extends TableSource {
  where?: Condition[];
  sort?: { column: string; direction?: 'asc' | 'desc' }[];
  columns?: string[];
  offset?: number;
  limit?: number;
}

export interface FilterSortOutput {
  columns: string[];
  rows: Row[];
  rowCount: number;
  matchedCount: number;
}

export const filterSortTool = defineTool<FilterSortArgs, FilterSortOutput>({
  name: 'filter-sort',
  title: 'Filter, sort and limit table rows',
  description:
    'Selects rows of a table (CSV text or JSON rows) that match all given conditions (=, !=, >, >=, <, <=, contains, starts/ends with, in a list, is ' +
    'null / not null), sorts them by one or more columns ascending or descending, keeps only chosen columns and returns a page (offset, limit) — like ' +
    'SQL WHERE / ORDER BY / LIMIT or a spreadsheet filter. Examples: "top 5 products by revenue", "orders over 100 EUR from France sorted by date", ' +
    '"rows where status is not empty". Numbers compare numerically, text case-insensitively; empty cells sort last. ' +
    'Do NOT use it to total, average or count per group (use table/group-by), or merely to read a CSV into rows (use table/parse-csv).',
  category: ['data'],
  tags: ['filter', 'sort', 'order by', 'where', 'top n', 'limit', 'select columns', 'csv', 'table', 'query'],
  inputSchema: {
    type: 'object',
    properties: {
      ...SOURCE_PROPERTIES,
      where: {
        type: 'array',
        maxItems: 20,
        description: 'Conditions that must all hold for a row to be kept.',
        items: {
          type: 'object',
          properties: {
            column: { type: 'string', minLength: 1, description: 'Column to test.' },
            op: { type: 'string', enum: [...OPS], description: 'Comparison: eq, ne, gt, gte, lt, lte, contains, not_contains, starts_with, ends_with, in, not_in, is_null, not_null.' },
            value: {
              type: ['string', 'number', 'boolean', 'null', 'array'],
              items: { type: ['string', 'number', 'boolean', 'null'] },
              description: 'Value to compare with; a list for in / not_in; omitted for is_null / not_null.',
            },
          },
          required: ['column', 'op'],
          additionalProperties: false,
        },
      },
      sort: {
        type: 'array',
        maxItems: 5,
        description: 'Sort keys, most significant first.',
        items: {
          type: 'object',
          properties: {
            column: { type: 'string', minLength: 1, description: 'Column to sort by.' },
            direction: { type: 'string', enum: ['asc', 'desc'], default: 'asc', description: 'asc (default) or desc.' },
          },
          required: ['column'],
          additionalProperties: false,
        },
      },
      columns: { type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true, description: 'Only return these columns, in this order.' },
      offset: { type: 'integer', minimum: 0, default: 0, description: 'Skip this many matching rows (for paging).' },
      limit: { type: 'integer', minimum: 1, maximum: 100000, description: 'Return at most this many rows.' },
    },
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: { ...TABLE_OUTPUT_PROPERTIES, matchedCount: { type: 'integer', description: 'Rows that matched the conditions before offset and limit.' } },
    required: ['columns', 'rows', 'rowCount', 'matchedCount'],
    additionalProperties: false,
  },
  examples: [
    {
      query: 'Top 2 products by revenue',
      arguments: {
        csv: 'product,revenue\nTea,120\nCoffee,340\nCocoa,95\nJuice,210',
        sort: [{ column: 'revenue', direction: 'desc' }],
        limit: 2,
      },
      output: {
        columns: ['product', 'revenue'],
        rows: [
          { product: 'Coffee', revenue: 340 },
          { product: 'Juice', revenue: 210 },
        ],
        rowCount: 2,
        matchedCount: 4,
      },
    },
    {
      query: 'Orders from France over 100, only id and amount',
      arguments: {
        rows: [
          { id: 1, country: 'France', amount: 150 },
          { id: 2, country: 'Spain', amount: 300 },
          { id: 3, country: 'france', amount: 80 },
          { id: 4, country: 'France', amount: 101 },
        ],
        where: [
          { column: 'country', op: 'eq', value: 'France' },
          { column: 'amount', op: 'gt', value: 100 },
        ],
        columns: ['id', 'amount'],
      },
      output: {
        columns: ['id', 'amount'],
        rows: [
          { id: 1, amount: 150 },
          { id: 4, amount: 101 },
        ],
        rowCount: 2,
        matchedCount: 2,
      },
    },
  ],
  permissions: { scopes: [], risk: 'read' },
  limits: { timeoutMs: 10_000, maxConcurrency: 8, retries: 0, idempotent: true },
  run(args, ctx) {
    const table = loadTable(args);
    const where = args.where ?? [];
    where.forEach((condition, i) => {
      requireColumn(table, condition.column, `/where/${i}/column`);
      checkValue(condition, `/where/${i}/value`);
    });
    args.sort?.forEach((key, i) => {
      requireColumn(table, key.column, `/sort/${i}/column`);
    });
    const columns = args.columns ?? table.columns;
    columns.forEach((column, i) => {
      requireColumn(table, column, `/columns/${i}`);
    });

    const matched = table.rows.filter((row) => where.every((condition) => holds(condition, row[condition.column])));
    ctx.signal.throwIfAborted();
    if (args.sort?.length) {
      const keys = args.sort;
      // Array.prototype.sort is stable, so equal keys keep their input order.
      matched.sort((a, b) => {
        for (const key of keys) {
          const order = compareForSort(a[key.column], b[key.column], key.direction === 'desc' ? -1 : 1);
          if (order !== 0) return order;
        }
        return 0;
      });
    }
    const offset = args.offset ?? 0;
    const page = matched.slice(offset, args.limit === undefined ? undefined : offset + args.limit);
    const rows = page.map((row) => Object.fromEntries(columns.map((column) => [column, row[column]])));
    return { columns, rows, rowCount: rows.length, matchedCount: matched.length };
  },
});

function checkValue({ op, value }: Condition, path: string): void {
  if (UNARY.includes(op)) return;
  if (value === undefined) throw invalid(path, `${op} needs a value`);
  if (LIST.includes(op) !== Array.isArray(value)) throw invalid(path, LIST.includes(op) ? `${op} needs a list of values` : `${op} needs a single value, not a list`);
}

/** Nulls go last in either direction. */
function compareForSort(a: Cell, b: Cell, direction: 1 | -1): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  return direction * compareCells(a, b);
}

const text = (cell: Cell): string => String(cell).toLowerCase();

function equals(cell: Cell, value: Cell): boolean {
  if (cell === null || value === null) return cell === value;
  const x = toNumber(cell);
  const y = toNumber(value);
  if (x !== undefined && y !== undefined) return x === y;
  return text(cell) === text(value);
}

function holds({ op, value }: Condition, cell: Cell): boolean {
  switch (op) {
    case 'is_null':
      return cell === null || cell === '';
    case 'not_null':
      return cell !== null && cell !== '';
    case 'in':
    case 'not_in':
      return (value as Cell[]).some((v) => equals(cell, v)) === (op === 'in');
    case 'eq':
      return equals(cell, value as Cell);
    case 'ne':
      return !equals(cell, value as Cell);
  }
  if (cell === null || value === null) return false;
  const scalar = value as Exclude<Cell, null>;
  switch (op) {
    case 'gt':
      return compareCells(cell, scalar) > 0;
    case 'gte':
      return compareCells(cell, scalar) >= 0;
    case 'lt':
      return compareCells(cell, scalar) < 0;
    case 'lte':
      return compareCells(cell, scalar) <= 0;
    case 'contains':
      return text(cell).includes(text(scalar));
    case 'not_contains':
      return !text(cell).includes(text(scalar));
    case 'starts_with':
      return text(cell).startsWith(text(scalar));
    case 'ends_with':
      return text(cell).endsWith(text(scalar));
  }
}
