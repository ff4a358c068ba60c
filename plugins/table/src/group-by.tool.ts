import { defineTool } from '@toolgate/sdk';
import { type Cell, compareCells, invalid, loadTable, type Row, requireColumn, SOURCE_PROPERTIES, TABLE_OUTPUT_PROPERTIES, type TableSource, tidy, toNumber } from './table.kit';

const OPS = ['count', 'count_distinct', 'sum', 'avg', 'min', 'max'] as const;
type Op = (typeof OPS)[number];

export interface Aggregation {
  op: Op;
  column?: string;
  as?: string;
}

export interface GroupByArgs extends TableSource {
  groupBy: string[];
  aggregations: Aggregation[];
}

export interface GroupByOutput {
  columns: string[];
  rows: Row[];
  rowCount: number;
  byColumn: Record<string, Cell[]>;
}

export const groupByTool = defineTool<GroupByArgs, GroupByOutput>({
  name: 'group-by',
  title: 'Group rows and aggregate',
  description:
    'Groups the rows of a table (CSV text or JSON rows) by one or more columns and computes aggregates per group: count of rows, count_distinct, sum, ' +
    'avg (mean), min and max of a column — like SQL GROUP BY or a spreadsheet pivot table. Examples: "total sales per region", "average price by ' +
    'category and year", "how many orders per customer", "max temperature per city". With an empty groupBy it aggregates the whole table (grand totals). ' +
    'Groups keep the order in which they first appear; use table/filter-sort on the result to rank them. ' +
    'Do NOT use it to filter, sort or pick rows without aggregating (use table/filter-sort), just to read a CSV (use table/parse-csv), ' +
    'or for arithmetic on a few numbers (use calculator/evaluate).',
  category: ['data'],
  tags: ['group by', 'aggregate', 'pivot', 'sum', 'average', 'count', 'totals', 'csv', 'table', 'statistics'],
  inputSchema: {
    type: 'object',
    properties: {
      ...SOURCE_PROPERTIES,
      groupBy: {
        type: 'array',
        items: { type: 'string', minLength: 1 },
        maxItems: 10,
        uniqueItems: true,
        description: 'Columns whose values define a group, e.g. ["region"]; [] aggregates all rows into one.',
      },
      aggregations: {
        type: 'array',
        minItems: 1,
        maxItems: 50,
        description: 'Aggregates to compute per group.',
        items: {
          type: 'object',
          properties: {
            op: { type: 'string', enum: [...OPS], description: 'count (rows, or non-null values of column), count_distinct, sum, avg, min or max.' },
            column: { type: 'string', minLength: 1, description: 'Column to aggregate; optional only for count.' },
            as: { type: 'string', minLength: 1, description: 'Name of the result column; default "<op>_<column>" (or "count").' },
          },
          required: ['op'],
          additionalProperties: false,
        },
      },
    },
    required: ['groupBy', 'aggregations'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      ...TABLE_OUTPUT_PROPERTIES,
      byColumn: {
        type: 'object',
        additionalProperties: { type: 'array', items: { type: ['string', 'number', 'boolean', 'null'] } },
        description: 'The result column by column, e.g. {"region": ["North", "South"], "total_sales": [150, 200]}: what a plan binds to chart/render labels and series values.',
      },
    },
    required: ['columns', 'rows', 'rowCount', 'byColumn'],
    additionalProperties: false,
  },
  examples: [
    {
      query: 'Total and average sales per region',
      arguments: {
        csv: 'region,rep,sales\nNorth,Ann,100\nSouth,Bob,80\nNorth,Cid,50\nSouth,Dee,120',
        groupBy: ['region'],
        aggregations: [{ op: 'sum', column: 'sales', as: 'total_sales' }, { op: 'avg', column: 'sales' }, { op: 'count' }],
      },
      output: {
        columns: ['region', 'total_sales', 'avg_sales', 'count'],
        rows: [
          { region: 'North', total_sales: 150, avg_sales: 75, count: 2 },
          { region: 'South', total_sales: 200, avg_sales: 100, count: 2 },
        ],
        rowCount: 2,
        byColumn: { region: ['North', 'South'], total_sales: [150, 200], avg_sales: [75, 100], count: [2, 2] },
      },
    },
    {
      query: 'What is the highest and lowest price overall?',
      arguments: {
        rows: [
          { item: 'pen', price: 1.5 },
          { item: 'book', price: 12 },
          { item: 'bag', price: 30 },
        ],
        groupBy: [],
        aggregations: [
          { op: 'max', column: 'price' },
          { op: 'min', column: 'price' },
        ],
      },
      output: { columns: ['max_price', 'min_price'], rows: [{ max_price: 30, min_price: 1.5 }], rowCount: 1, byColumn: { max_price: [30], min_price: [1.5] } },
    },
  ],
  permissions: { scopes: [], risk: 'read' },
  limits: { timeoutMs: 10_000, maxConcurrency: 8, retries: 0, idempotent: true },
  run(args, ctx) {
    const table = loadTable(args);
    args.groupBy.forEach((column, i) => {
      requireColumn(table, column, `/groupBy/${i}`);
    });
    const outputs = args.aggregations.map((aggregation, i) => {
      if (aggregation.column === undefined && aggregation.op !== 'count') throw invalid(`/aggregations/${i}/column`, `${aggregation.op} needs a column`);
      if (aggregation.column !== undefined) requireColumn(table, aggregation.column, `/aggregations/${i}/column`);
      return aggregation.as ?? (aggregation.column === undefined ? 'count' : `${aggregation.op}_${aggregation.column}`);
    });
    const columns = [...args.groupBy, ...outputs];
    const duplicate = columns.findIndex((name, i) => columns.indexOf(name) !== i);
    if (duplicate >= 0) {
      throw invalid(`/aggregations/${duplicate - args.groupBy.length}/as`, `result column "${columns[duplicate]}" appears twice; name it with "as"`);
    }

    const groups = new Map<string, Row[]>();
    for (const row of table.rows) {
      const key = JSON.stringify(args.groupBy.map((column) => row[column]));
      const members = groups.get(key);
      if (members) members.push(row);
      else groups.set(key, [row]);
    }
    if (args.groupBy.length === 0 && groups.size === 0) groups.set('[]', []);
    ctx.signal.throwIfAborted();

    const rows = [...groups.values()].map((members) => {
      const result: Row = Object.fromEntries(args.groupBy.map((column) => [column, members[0][column]]));
      args.aggregations.forEach((aggregation, i) => {
        result[outputs[i]] = aggregate(aggregation, members, i);
      });
      return result;
    });
    return { columns, rows, rowCount: rows.length, byColumn: Object.fromEntries(columns.map((column) => [column, rows.map((row) => row[column])])) };
  },
});

function aggregate({ op, column }: Aggregation, rows: Row[], index: number): Cell {
  if (column === undefined) return rows.length;
  const values = rows.map((row) => row[column]).filter((value) => value !== null);
  switch (op) {
    case 'count':
      return values.length;
    case 'count_distinct':
      return new Set(values.map((value) => JSON.stringify(value))).size;
    case 'min':
    case 'max': {
      if (values.length === 0) return null;
      const sign = op === 'min' ? 1 : -1;
      return values.reduce((best, value) => (sign * compareCells(value, best) < 0 ? value : best));
    }
    case 'sum':
    case 'avg': {
      const numbers: number[] = [];
      rows.forEach((row, i) => {
        if (row[column] === null) return;
        const n = toNumber(row[column]);
        if (n === undefined) {
          throw invalid(`/aggregations/${index}/column`, `${op} of "${column}": ${JSON.stringify(row[column])} is not a number (group row ${i + 1})`);
        }
        numbers.push(n);
      });
      const sum = numbers.reduce((a, b) => a + b, 0);
      if (op === 'sum') return tidy(sum);
      return numbers.length === 0 ? null : tidy(sum / numbers.length);
    }
  }
}
