import { createCanvas } from '@napi-rs/canvas';
import { ErrorCode } from '@toolgate/sdk';
import { testContext, toolTester } from '@toolgate/sdk/testing';
import { type Pixels, seriesColors, titleBandHeight } from './chart.colors';
import { tools } from './index';
import { normaliseTitle } from './inspect-chart.tool';
import { normaliseQuarterColumns, parseNumber, tableFromTsv } from './ocr-table.parser';
import { removeRules } from './png.codec';

/*
 * What runs without tesseract: contracts, layout from TSV text, typing, colour counting and input
 * checks. The tools' runs through the real tesseract (examples included) are in
 * test/integration/visual-workflow.int-spec.ts.
 */

const { failure, conformance } = toolTester(tools);

const HEADER = 'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext';
/** Tesseract TSV for words given as [line, left, width, text] (height 20, confidence 95). */
function tsv(words: [number, number, number, string][], confidence = 95): string {
  const rows = words.map(([line, left, width, text], i) => `5\t1\t1\t1\t${line}\t${i + 1}\t${left}\t${line * 40}\t${width}\t20\t${confidence}\t${text}`);
  return [HEADER, '1\t1\t0\t0\t0\t0\t0\t0\t600\t400\t-1\t', ...rows].join('\n');
}

it('every vision tool meets the sdk contract and says when not to use it', async () => {
  expect(await conformance({ runExamples: false, descriptionPattern: /do not use/i })).toEqual({});
});

describe('table layout from tesseract TSV', () => {
  it('places cells by column x-range: multi-word cells, right-aligned numbers, a missing cell', () => {
    const table = tableFromTsv(
      tsv([
        [1, 10, 70, 'Quarter'],
        [1, 150, 60, 'Region'],
        [1, 330, 70, 'Amount'],
        [2, 10, 25, 'Q1'],
        [2, 150, 40, 'New'],
        [2, 196, 40, 'York'],
        [2, 350, 50, '1,200'],
        [3, 10, 25, 'Q2'],
        [3, 371, 29, '980'],
        [4, 10, 25, 'Q3'],
        [4, 150, 50, 'South'],
        [4, 330, 70, '$2,500.00'],
      ]),
    );
    expect(table.grid).toEqual([
      ['Quarter', 'Region', 'Amount'],
      ['Q1', 'New York', '1,200'],
      ['Q2', '', '980'],
      ['Q3', 'South', '$2,500.00'],
    ]);
    expect(table.text.split('\n')[2]).toBe('Q2\t\t980');
  });

  it('drops low-confidence punctuation (rules read as text) but keeps real words', () => {
    const table = tableFromTsv([tsv([[1, 10, 50, 'Name']]), '5\t1\t1\t1\t2\t1\t10\t60\t300\t4\t20\t——', '5\t1\t1\t1\t3\t1\t10\t100\t50\t20\t40\tAnn'].join('\n'));
    expect(table.grid).toEqual([['Name'], ['Ann']]);
  });

  it('reads nothing from an empty TSV', () => {
    expect(tableFromTsv(HEADER)).toEqual({ grid: [], text: '', notes: [] });
  });
});

describe('quarter labels', () => {
  it('fixes Ql, QI and O1 in a column of quarters and says so', () => {
    const rows = [
      ['Quarter', 'Amount'],
      ['Ql', '1'],
      ['Q2', '2'],
      ['Q3', '3'],
      ['QI', '4'],
      ['Q4', '5'],
    ];
    expect(normaliseQuarterColumns(rows)).toEqual(['column 1 (Quarter): read "Ql" as "Q1" in 1 cell', 'column 1 (Quarter): read "QI" as "Q1" in 1 cell']);
    expect(rows.map((r) => r[0])).toEqual(['Quarter', 'Q1', 'Q2', 'Q3', 'Q1', 'Q4']);
  });

  it('leaves codes alone where quarters are not the rule: 01/02 codes, or a column with other text', () => {
    const codes = [['Code'], ['01'], ['02'], ['03']];
    const mixed = [['Label'], ['Q1'], ['Ql'], ['Total'], ['Q2']];
    expect([normaliseQuarterColumns(codes), normaliseQuarterColumns(mixed)]).toEqual([[], []]);
    expect([codes.flat(), mixed.flat()]).toEqual([
      ['Code', '01', '02', '03'],
      ['Label', 'Q1', 'Ql', 'Total', 'Q2'],
    ]);
  });
});

describe('numbers in cells', () => {
  it.each([
    ['1,010', 1010],
    ['$2,500.00', 2500],
    ['12.5%', 12.5],
    ['(1,200)', -1200],
    ['-3.5', -3.5],
    ['€ 40', 40],
    ['0.75', 0.75],
    ['1,234,567.8', 1234567.8],
  ])('reads %s as %d', (text, value) => {
    expect(parseNumber(text)).toBe(value);
  });

  it.each(['007', '1,20', '12,34.5', 'Q1', 'North', '1.2.3', '', '$'])('keeps %j as text', (text) => {
    expect(parseNumber(text)).toBeUndefined();
  });
});

/** A white image with the given drawing, as pixels. */
function draw(width: number, height: number, paint: (g: ReturnType<ReturnType<typeof createCanvas>['getContext']>) => void): Pixels {
  const canvas = createCanvas(width, height);
  const g = canvas.getContext('2d');
  g.fillStyle = '#FFFFFF';
  g.fillRect(0, 0, width, height);
  paint(g);
  return { width, height, data: g.getImageData(0, 0, width, height).data };
}

function polyline(g: ReturnType<ReturnType<typeof createCanvas>['getContext']>, color: string, points: [number, number][]): void {
  g.strokeStyle = color;
  g.lineWidth = 3;
  g.beginPath();
  for (const [i, [x, y]] of points.entries()) {
    if (i === 0) g.moveTo(x, y);
    else g.lineTo(x, y);
  }
  g.stroke();
}

describe('series colours', () => {
  it('counts each saturated line colour once, anti-aliasing and grey grid lines aside', () => {
    const pixels = draw(400, 300, (g) => {
      g.fillStyle = '#E3E3E3';
      for (let y = 60; y < 300; y += 40) g.fillRect(0, y, 400, 1);
      g.fillStyle = '#111111';
      g.font = 'bold 28px sans-serif';
      g.fillText('Title', 150, 40);
      polyline(g, '#0072B2', [
        [10, 250],
        [150, 120],
        [390, 200],
      ]);
      polyline(g, '#56B4E9', [
        [10, 150],
        [200, 280],
        [390, 90],
      ]);
    });
    expect(seriesColors(pixels).map((c) => c.hex)).toEqual(expect.arrayContaining(['#0072B2', '#56B4E9']));
    expect(seriesColors(pixels)).toHaveLength(2);
  });

  it('does not count black, grey or tiny specks of colour', () => {
    const pixels = draw(400, 300, (g) => {
      polyline(g, '#000000', [
        [10, 250],
        [390, 50],
      ]);
      polyline(g, '#888888', [
        [10, 50],
        [390, 250],
      ]);
      g.fillStyle = '#D55E00';
      g.fillRect(200, 150, 3, 3);
    });
    expect(seriesColors(pixels)).toEqual([]);
  });

  it('takes the rows above the first coloured row as the title band', () => {
    const legendAt = 50;
    const pixels = draw(300, 200, (g) => {
      g.fillStyle = '#111111';
      g.fillText('Title', 100, 30);
      g.fillStyle = '#009E73';
      g.fillRect(120, legendAt, 12, 12);
    });
    expect(titleBandHeight(pixels)).toBe(legendAt);
    expect(titleBandHeight(draw(300, 200, () => {}))).toBe(30);
  });
});

it('paints over grid lines and rules but not letters', () => {
  const pixels = draw(400, 200, (g) => {
    g.fillStyle = '#111111';
    g.font = '24px sans-serif';
    g.fillText('Widgets 2,500', 20, 60);
    g.fillRect(10, 100, 380, 1);
    g.fillRect(200, 10, 1, 180);
  });
  const inkAt = (x: number, y: number) => pixels.data[(y * pixels.width + x) * 4] < 160;
  const inkCount = () => Array.from({ length: pixels.width * pixels.height }, (_, i) => pixels.data[i * 4] < 160).filter(Boolean).length;
  const before = inkCount();
  expect(removeRules(pixels)).toBe(2);
  expect([inkAt(50, 100), inkAt(200, 150)]).toEqual([false, false]);
  expect(inkCount()).toBeGreaterThan((before - 380 - 180) * 0.9);
  expect(inkCount()).toBeGreaterThan(100);
});

it('compares titles without case, spacing or punctuation', () => {
  expect(normaliseTitle('  Revenue by quarter. ')).toBe(normaliseTitle('REVENUE  by Quarter'));
  expect(normaliseTitle('Revenue by region')).not.toBe(normaliseTitle('Revenue by quarter'));
});

describe('bad input is refused before OCR runs', () => {
  const code = (error: { code: ErrorCode; details: { path: string }[] }) => ({ code: error.code, paths: error.details.map((d) => d.path) });

  it('extract-table: non-image bytes, text that is not base64, a type that contradicts the bytes, a PNG cut short', async () => {
    const png = Buffer.from(createCanvas(20, 20).toBuffer('image/png')).toString('base64');
    expect(code(await failure('extract-table', { imageBase64: Buffer.from('name,amount\nx,1\n').toString('base64') }))).toEqual({
      code: ErrorCode.INVALID_ARGUMENTS,
      paths: ['/imageBase64'],
    });
    expect(code(await failure('extract-table', { imageBase64: 'not base64 at all!' }))).toEqual({ code: ErrorCode.INVALID_ARGUMENTS, paths: ['/imageBase64'] });
    expect(code(await failure('extract-table', { imageBase64: png, mimeType: 'image/jpeg' }))).toEqual({ code: ErrorCode.INVALID_ARGUMENTS, paths: ['/mimeType'] });
    const truncated = Buffer.from(png, 'base64').subarray(0, 60).toString('base64');
    expect(code(await failure('extract-table', { imageBase64: truncated }))).toEqual({ code: ErrorCode.INVALID_ARGUMENTS, paths: ['/imageBase64'] });
  });

  it('inspect-chart: a JPEG, and a PNG cut short', async () => {
    const canvas = createCanvas(40, 40);
    const jpeg = canvas.toBuffer('image/jpeg').toString('base64');
    const truncated = canvas.toBuffer('image/png').subarray(0, 60).toString('base64');
    expect(code(await failure('inspect-chart', { pngBase64: jpeg }))).toEqual({ code: ErrorCode.INVALID_ARGUMENTS, paths: ['/pngBase64'] });
    expect(code(await failure('inspect-chart', { pngBase64: truncated }))).toEqual({ code: ErrorCode.INVALID_ARGUMENTS, paths: ['/pngBase64'] });
  });

  it('a cancelled call stops before reading the image', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    const png = createCanvas(20, 20).toBuffer('image/png').toString('base64');
    const { call } = toolTester(tools);
    await expect(call('extract-table', { imageBase64: png }, testContext({ signal: controller.signal }))).rejects.toThrow('cancelled');
  });
});
