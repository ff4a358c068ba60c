import { ErrorCode } from '@toolgate/sdk';
import { toolTester } from '@toolgate/sdk/testing';
import { tools } from './index';

const { call, failure, conformance } = toolTester(tools);

async function expectInvalid(name: string, args: Record<string, unknown>, path: string): Promise<void> {
  const error = await failure(name, args);
  expect({ code: error.code, paths: error.details.map((d) => d.path) }).toEqual({ code: ErrorCode.INVALID_ARGUMENTS, paths: expect.arrayContaining([path]) });
}

it('every table tool meets the sdk contract and says when not to use it', async () => {
  expect(await conformance({ minExamples: 2, maxExamples: 4, descriptionPattern: /do not use/i })).toEqual({});
});

const sales = [
  'date,region,product,units,price',
  '2025-01-03,North,Tea,10,3.5',
  '2025-01-04,South,Coffee,4,4.25',
  '2025-01-04,North,Coffee,,4.25',
  '2025-01-05,south,Tea,7,3.5',
  '2025-01-06,East,Cocoa,2,5',
].join('\n');

describe('table/parse-csv', () => {
  it('types cells, pads short rows and reports extra fields', async () => {
    const output = await call('parse-csv', { csv: 'a,b\n1,x\n2\n3,y,extra' });
    expect(output.rows).toEqual([
      { a: 1, b: 'x' },
      { a: 2, b: null },
      { a: 3, b: 'y' },
    ]);
    expect(output.columnTypes).toEqual({ a: 'number', b: 'string' });
    expect(output.warnings).toEqual(['row 3: 1 extra field(s) ignored']);
  });

  it('handles quotes, multi-line cells, tabs, duplicate and missing headers', async () => {
    const output = await call('parse-csv', { csv: 'name\tname\t\n"Doe, ""J"""\t"line1\nline2"\t-1.5e3' });
    expect(output.columns).toEqual(['name', 'name_2', 'column3']);
    expect(output.rows).toEqual([{ name: 'Doe, "J"', name_2: 'line1\nline2', column3: -1500 }]);
  });

  it('can keep every cell as text and read headerless data', async () => {
    const output = await call('parse-csv', { csv: '1,true\n2,false', header: false, typed: false });
    expect(output.columns).toEqual(['column1', 'column2']);
    expect(output.rows).toEqual([
      { column1: '1', column2: 'true' },
      { column1: '2', column2: 'false' },
    ]);
  });
});

describe('table/group-by', () => {
  it('aggregates per group in order of first appearance, skipping empty cells', async () => {
    const output = await call('group-by', {
      csv: sales,
      groupBy: ['product'],
      aggregations: [{ op: 'sum', column: 'units' }, { op: 'count' }, { op: 'count', column: 'units', as: 'with_units' }, { op: 'count_distinct', column: 'region' }],
    });
    expect(output.rows).toEqual([
      { product: 'Tea', sum_units: 17, count: 2, with_units: 2, count_distinct_region: 2 },
      { product: 'Coffee', sum_units: 4, count: 2, with_units: 1, count_distinct_region: 2 },
      { product: 'Cocoa', sum_units: 2, count: 1, with_units: 1, count_distinct_region: 1 },
    ]);
  });

  it('groups by several columns and computes min, max, avg', async () => {
    const output = await call('group-by', {
      csv: sales,
      groupBy: ['date', 'product'],
      aggregations: [
        { op: 'avg', column: 'price' },
        { op: 'min', column: 'region' },
        { op: 'max', column: 'units' },
      ],
    });
    expect(output.rowCount).toBe(4);
    expect(output.rows).toContainEqual({ date: '2025-01-04', product: 'Coffee', avg_price: 4.25, min_region: 'North', max_units: 4 });
  });

  it('also gives the result column by column, for plans that bind a column to a chart', async () => {
    const output = await call('group-by', { csv: sales, groupBy: ['product'], aggregations: [{ op: 'sum', column: 'units', as: 'units' }] });
    expect(output.byColumn).toEqual({ product: ['Tea', 'Coffee', 'Cocoa'], units: [17, 4, 2] });
  });

  it('gives grand totals for an empty groupBy, even for no rows', async () => {
    expect((await call('group-by', { rows: [{ x: 0.1 }, { x: 0.2 }], groupBy: [], aggregations: [{ op: 'sum', column: 'x' }] })).rows).toEqual([{ sum_x: 0.3 }]);
    expect((await call('group-by', { rows: [], groupBy: [], aggregations: [{ op: 'count' }] })).rows).toEqual([{ count: 0 }]);
  });

  it('rejects unknown columns, non-numeric sums and clashing names', async () => {
    await expectInvalid('group-by', { csv: sales, groupBy: ['country'], aggregations: [{ op: 'count' }] }, '/groupBy/0');
    await expectInvalid('group-by', { csv: sales, groupBy: [], aggregations: [{ op: 'count' }, { op: 'sum', column: 'revenue' }] }, '/aggregations/1/column');
    await expectInvalid('group-by', { csv: sales, groupBy: [], aggregations: [{ op: 'sum', column: 'product' }] }, '/aggregations/0/column');
    await expectInvalid('group-by', { csv: sales, groupBy: [], aggregations: [{ op: 'avg' }] }, '/aggregations/0/column');
    await expectInvalid('group-by', { csv: sales, groupBy: ['region'], aggregations: [{ op: 'count', as: 'region' }] }, '/aggregations/0/as');
  });

  it('needs exactly one of csv and rows', async () => {
    await expectInvalid('group-by', { groupBy: [], aggregations: [{ op: 'count' }] }, '/csv');
    await expectInvalid('group-by', { csv: 'a\n1', rows: [{ a: 1 }], groupBy: [], aggregations: [{ op: 'count' }] }, '/rows');
  });
});

describe('table/filter-sort', () => {
  it('filters case-insensitively, sorts with nulls last and pages', async () => {
    const output = await call('filter-sort', {
      csv: sales,
      where: [{ column: 'region', op: 'in', value: ['north', 'SOUTH'] }],
      sort: [{ column: 'units', direction: 'desc' }],
      columns: ['region', 'units'],
      offset: 1,
      limit: 2,
    });
    expect(output).toEqual({
      columns: ['region', 'units'],
      rows: [
        { region: 'south', units: 7 },
        { region: 'South', units: 4 },
      ],
      rowCount: 2,
      matchedCount: 4,
    });
    const last = await call('filter-sort', { csv: sales, sort: [{ column: 'units' }] });
    expect((last.rows as { units: unknown }[]).map((r) => r.units)).toEqual([2, 4, 7, 10, null]);
  });

  it('supports text and null operators and multi-key sorts', async () => {
    const tea = await call('filter-sort', {
      csv: sales,
      where: [
        { column: 'product', op: 'starts_with', value: 'te' },
        { column: 'units', op: 'not_null' },
      ],
    });
    expect(tea.matchedCount).toBe(2);
    const missing = await call('filter-sort', { csv: sales, where: [{ column: 'units', op: 'is_null' }] });
    expect(missing.rows).toEqual([{ date: '2025-01-04', region: 'North', product: 'Coffee', units: null, price: 4.25 }]);
    const sorted = await call('filter-sort', {
      csv: sales,
      sort: [
        { column: 'price', direction: 'desc' },
        { column: 'date', direction: 'desc' },
      ],
      columns: ['date'],
    });
    expect((sorted.rows as { date: string }[]).map((r) => r.date)).toEqual(['2025-01-06', '2025-01-04', '2025-01-04', '2025-01-05', '2025-01-03']);
  });

  it('compares numbers numerically even when given as text', async () => {
    const output = await call('filter-sort', { rows: [{ v: '10' }, { v: '9' }, { v: 100 }], where: [{ column: 'v', op: 'gte', value: '10' }] });
    expect(output.rows).toEqual([{ v: '10' }, { v: 100 }]);
  });

  it('rejects unknown columns and malformed values on the right path', async () => {
    await expectInvalid('filter-sort', { csv: sales, where: [{ column: 'colour', op: 'eq', value: 'red' }] }, '/where/0/column');
    await expectInvalid('filter-sort', { csv: sales, where: [{ column: 'units', op: 'gt' }] }, '/where/0/value');
    await expectInvalid('filter-sort', { csv: sales, where: [{ column: 'units', op: 'in', value: 3 }] }, '/where/0/value');
    await expectInvalid('filter-sort', { csv: sales, sort: [{ column: 'nope' }] }, '/sort/0/column');
    await expectInvalid('filter-sort', { csv: sales, columns: ['units', 'nope'] }, '/columns/1');
  });
});
