import { readdirSync, readFileSync } from 'node:fs';
import { ErrorCode } from '@toolgate/sdk';
import { testContext, toolTester } from '@toolgate/sdk/testing';
import { tools as chartTools } from '../../plugins/chart/src';
import { tools as tableTools } from '../../plugins/table/src';
import { tools as visionTools } from '../../plugins/vision/src';
import { renderTableImage } from '../support/text-image';

/*
 * Issue 5, item 10 at the plugin level: a sales table screenshot -> vision/extract-table ->
 * table/group-by (sum per quarter) -> chart/render (line) -> vision/inspect-chart, every tool the real
 * one, OCR by the real tesseract CLI (scripts/ensure-tesseract.sh; missing is a failure, not a skip).
 * The screenshot has a Quarter column, so grouping by quarter needs no derived key.
 */

const vision = toolTester(visionTools);
const table = toolTester(tableTools);
const chart = toolTester(chartTools);

type Sale = [quarter: string, region: string, amount: number];
const SALES: Sale[] = [
  ['Q1', 'North', 1200],
  ['Q1', 'South', 980],
  ['Q1', 'West', 1515.5],
  ['Q2', 'North', 1350],
  ['Q2', 'South', 1010],
  ['Q2', 'West', 1420],
  ['Q3', 'North', 990],
  ['Q3', 'South', 1105],
  ['Q3', 'West', 1610.25],
  ['Q4', 'North', 1500],
  ['Q4', 'South', 2500],
  ['Q4', 'West', 1745],
];
const money = (n: number) => n.toLocaleString('en-US', { minimumFractionDigits: Number.isInteger(n) ? 0 : 2 });
const screenshotOf = (rows: Sale[], options: Parameters<typeof renderTableImage>[1] = {}) => renderTableImage([['Quarter', 'Region', 'Amount'], ...rows.map(([q, r, a]) => [q, r, money(a)])], options);

const QUARTERS = ['Q1', 'Q2', 'Q3', 'Q4'];
const sumOf = (rows: Sale[], quarter: string, region?: string) =>
  Number(
    rows
      .filter(([q, r]) => q === quarter && (region === undefined || r === region))
      .reduce((sum, [, , a]) => sum + a, 0)
      .toPrecision(15),
  );
const normalise = (title: unknown) =>
  String(title)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

it('every vision tool conforms, its examples run through the real tesseract and return what they declare', async () => {
  expect(await vision.conformance({ descriptionPattern: /do not use/i })).toEqual({});
});

describe('visual workflow: sales screenshot -> table -> revenue per quarter -> line chart -> chart check', () => {
  it('reads the screenshot back cell for cell, numbers typed, with records group-by takes', async () => {
    const extracted = await vision.call('extract-table', { imageBase64: screenshotOf(SALES).toString('base64'), mimeType: 'image/png' });
    expect(extracted.columns).toEqual(['Quarter', 'Region', 'Amount']);
    expect(extracted.rows).toEqual(SALES);
    expect(extracted.records).toEqual(SALES.map(([Quarter, Region, Amount]) => ({ Quarter, Region, Amount })));
    expect(extracted.rowCount).toBe(SALES.length);
  });

  it('chains the four tools: one series titled "Revenue by quarter"', async () => {
    const extracted = await vision.call('extract-table', { imageBase64: screenshotOf(SALES).toString('base64') });
    const grouped = await table.call('group-by', { rows: extracted.records, groupBy: ['Quarter'], aggregations: [{ op: 'sum', column: 'Amount', as: 'Revenue' }] });
    expect(grouped.rows).toEqual(QUARTERS.map((q) => ({ Quarter: q, Revenue: sumOf(SALES, q) })));

    // What a plan binds: steps.<group>.output/byColumn/Quarter and .../byColumn/Revenue.
    const byColumn = grouped.byColumn as Record<string, unknown[]>;
    const rendered = await chart.call('render', { type: 'line', title: 'Revenue by quarter', labels: byColumn.Quarter, series: [{ name: 'Revenue', values: byColumn.Revenue }] });
    const inspected = await vision.call('inspect-chart', { pngBase64: rendered.pngBase64, expectedTitle: 'Revenue by quarter' });
    expect({ title: normalise(inspected.title), seriesCount: inspected.seriesCount, titleMatches: inspected.titleMatches, size: [inspected.width, inspected.height] }).toEqual({
      title: 'revenue by quarter',
      seriesCount: 1,
      titleMatches: true,
      size: [rendered.width, rendered.height],
    });
    const other = await vision.call('inspect-chart', { pngBase64: rendered.pngBase64, expectedTitle: 'Revenue by region' });
    expect(other.titleMatches).toBe(false);
  });

  it('charts two regions as two series and the check counts two', async () => {
    const extracted = await vision.call('extract-table', { imageBase64: screenshotOf(SALES).toString('base64') });
    const grouped = await table.call('group-by', {
      rows: extracted.records,
      groupBy: ['Quarter', 'Region'],
      aggregations: [{ op: 'sum', column: 'Amount', as: 'Revenue' }],
    });
    const rows = grouped.rows as { Quarter: string; Region: string; Revenue: number }[];
    const regions = ['North', 'South'];
    const series = regions.map((region) => ({ name: region, values: QUARTERS.map((q) => rows.find((r) => r.Quarter === q && r.Region === region)?.Revenue ?? null) }));
    expect(series.map((s) => s.values)).toEqual(regions.map((region) => QUARTERS.map((q) => sumOf(SALES, q, region))));

    const rendered = await chart.call('render', { type: 'line', title: 'Revenue by quarter and region', labels: QUARTERS, series, width: 900, height: 540 });
    const inspected = await vision.call('inspect-chart', { pngBase64: rendered.pngBase64, expectedTitle: 'Revenue by quarter and region' });
    expect({ seriesCount: inspected.seriesCount, titleMatches: inspected.titleMatches }).toEqual({ seriesCount: 2, titleMatches: true });
  });

  it('reads a screenshot with cell borders (grid lines removed before OCR) and a JPEG, Product/Revenue layout', async () => {
    const rows: [string, string, number][] = [
      ['Q1', 'Widgets', 2500],
      ['Q2', 'Widgets', 2750.5],
      ['Q1', 'Gadgets', 1010],
      ['Q2', 'Gadgets', 1200],
    ];
    const cells = [['Quarter', 'Product', 'Revenue'], ...rows.map(([q, p, r]) => [q, p, `$${money(r)}`])];
    const grid = renderTableImage(cells, { grid: true });
    const jpeg = renderTableImage(cells, { mimeType: 'image/jpeg' });
    for (const [image, mimeType] of [
      [grid, 'image/png'],
      [jpeg, 'image/jpeg'],
    ] as const) {
      const extracted = await vision.call('extract-table', { imageBase64: image.toString('base64'), mimeType });
      expect({ mimeType, columns: extracted.columns, rows: extracted.rows }).toEqual({ mimeType, columns: ['Quarter', 'Product', 'Revenue'], rows });
    }
  });
});

describe('visual workflow: bad input', () => {
  it('non-image bytes are INVALID_ARGUMENTS naming the field', async () => {
    const error = await vision.failure('extract-table', { imageBase64: Buffer.from('Quarter,Amount\nQ1,100\n').toString('base64') });
    expect({ code: error.code, paths: error.details.map((d) => d.path) }).toEqual({ code: ErrorCode.INVALID_ARGUMENTS, paths: ['/imageBase64'] });
  });

  it('a JPEG that tesseract cannot decode is INVALID_ARGUMENTS, not a crash', async () => {
    const truncated = screenshotOf(SALES, { mimeType: 'image/jpeg' }).subarray(0, 200);
    const error = await vision.failure('extract-table', { imageBase64: truncated.toString('base64') });
    expect({ code: error.code, paths: error.details.map((d) => d.path) }).toEqual({ code: ErrorCode.INVALID_ARGUMENTS, paths: ['/imageBase64'] });
  });

  it('a blank image gives an empty table with a note saying why', async () => {
    const blank = renderTableImage([['']]);
    const extracted = await vision.call('extract-table', { imageBase64: blank.toString('base64') });
    expect(extracted).toEqual({ columns: [], rows: [], records: [], rowCount: 0, text: '', notes: ['no text was found in the image, so the table is empty'] });
  });

  it('a cancelled call kills its tesseract process and rejects with the reason', async () => {
    const controller = new AbortController();
    const reading = vision.call('extract-table', { imageBase64: screenshotOf([...SALES, ...SALES, ...SALES]).toString('base64') }, testContext({ signal: controller.signal }));
    expect(tesseractChildren()).toHaveLength(1);
    controller.abort(new Error('run cancelled'));
    await expect(reading).rejects.toThrow('run cancelled');
    expect(tesseractChildren()).toEqual([]);
  });
});

/** Live tesseract processes started by this test process (from /proc: comm and parent pid). */
function tesseractChildren(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').trim();
        const [, comm, rest] = /^\d+ \((.*)\) (.*)$/.exec(stat) ?? [];
        const [state, parent] = (rest ?? '').split(' ');
        return comm === 'tesseract' && Number(parent) === process.pid && state !== 'Z';
      } catch {
        return false;
      }
    })
    .map(Number);
}
