import { defineTool } from '@toolgate/sdk';
import { EXAMPLE_TABLE_PNG } from './example.images';
import { decodeImage, type ImageMimeType, MAX_BASE64_LENGTH } from './image-input.decoder';
import { type TableCell, tableFromTsv, typeCell } from './ocr-table.parser';
import { decodePng, encodeGreyPng, removeRules } from './png.codec';
import { recognizeTsv, tesseractHealth } from './tesseract.ocr';

export interface ExtractTableArgs {
  imageBase64: string;
  mimeType?: ImageMimeType;
  header?: boolean;
}

export interface ExtractTableOutput {
  columns: string[];
  rows: TableCell[][];
  records: Record<string, TableCell>[];
  rowCount: number;
  text: string;
  notes: string[];
}

const CELL = { type: ['string', 'number', 'null'] };
const TIMEOUT_MS = 30_000;

export const extractTableTool = defineTool<ExtractTableArgs, ExtractTableOutput>({
  name: 'extract-table',
  title: 'Extract a table from a screenshot (OCR)',
  description:
    'Reads a table out of an image (a screenshot or scan of a spreadsheet, report or web page table, PNG or JPEG) with local OCR and returns ' +
    'its columns and rows: the first row is the header, cells are placed by their column position, and numbers written like "1,010", ' +
    '"$2,500.00", "(300)" or "12.5%" become numbers. Quarter labels misread by OCR ("Ql") are fixed in a column of quarters, and every fix ' +
    'is listed in notes. Use it for "get the numbers out of this screenshot", "turn this table image into data", then aggregate the result ' +
    'with table/group-by (pass records as its rows) or plot it with chart/render. Do NOT use it for free text or a photo without a table ' +
    '(the task image is already read for you), for handwriting, for charts (use vision/inspect-chart), or for a table you already have as ' +
    'CSV text (use table/parse-csv).',
  category: ['data', 'vision'],
  tags: ['ocr', 'table', 'screenshot', 'image', 'extract', 'scan', 'spreadsheet', 'tesseract', 'png', 'jpeg'],
  inputSchema: {
    type: 'object',
    properties: {
      imageBase64: {
        type: 'string',
        minLength: 1,
        maxLength: MAX_BASE64_LENGTH,
        contentEncoding: 'base64',
        description: 'The image (PNG or JPEG, at most 10 MB) as base64; a data: URL prefix is accepted.',
      },
      mimeType: { type: 'string', enum: ['image/png', 'image/jpeg'], description: 'The image type; detected from the bytes when omitted, and must match them when given.' },
      header: { type: 'boolean', default: true, description: 'The first row holds the column names (default true); false names them column1, column2, ...' },
    },
    required: ['imageBase64'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      columns: { type: 'array', items: { type: 'string' }, description: 'Column names in order.' },
      rows: { type: 'array', items: { type: 'array', items: CELL }, description: 'Data rows, one cell per column: a number, text, or null where the row has no cell.' },
      records: {
        type: 'array',
        items: { type: 'object', additionalProperties: CELL },
        description: 'The same rows as objects keyed by column name (what table/group-by and table/filter-sort take as rows).',
      },
      rowCount: { type: 'integer', description: 'Number of data rows.' },
      text: { type: 'string', description: 'The table as read, one line per row with tab-separated cells, before any fix.' },
      notes: { type: 'array', items: { type: 'string' }, description: 'OCR fixes applied, and why a table came out empty.' },
    },
    required: ['columns', 'rows', 'records', 'rowCount', 'text', 'notes'],
    additionalProperties: false,
  },
  examples: [
    {
      query: 'Get the quarterly revenue out of this screenshot',
      arguments: { imageBase64: EXAMPLE_TABLE_PNG, mimeType: 'image/png' },
      output: {
        columns: ['Quarter', 'Revenue'],
        rows: [
          ['Q1', 1200],
          ['Q2', 1350],
          ['Q3', 990.5],
        ],
        records: [
          { Quarter: 'Q1', Revenue: 1200 },
          { Quarter: 'Q2', Revenue: 1350 },
          { Quarter: 'Q3', Revenue: 990.5 },
        ],
        rowCount: 3,
        text: 'Quarter\tRevenue\nQl\t1,200\nQ2\t1,350\nQ3\t$990.50',
        notes: ['column 1 (Quarter): read "Ql" as "Q1" in 1 cell'],
      },
    },
  ],
  permissions: { scopes: ['proc:tesseract'], risk: 'read' },
  // OCR is CPU-bound: few at a time on a shared host.
  limits: { timeoutMs: TIMEOUT_MS, maxConcurrency: 2, retries: 0, idempotent: true },
  healthCheck: tesseractHealth,
  async run(args, ctx) {
    const { bytes, mimeType } = decodeImage(args.imageBase64, '/imageBase64', ['image/png', 'image/jpeg'], args.mimeType);
    ctx.signal.throwIfAborted();
    const read = tableFromTsv(await recognizeTsv(withoutRules(bytes, mimeType), ctx.signal, TIMEOUT_MS - 1_000, '/imageBase64'));
    if (read.grid.length === 0) {
      return { columns: [], rows: [], records: [], rowCount: 0, text: '', notes: ['no text was found in the image, so the table is empty'] };
    }
    const header = args.header ?? true;
    const width = read.grid[0].length;
    const columns = uniqueNames(Array.from({ length: width }, (_, c) => (header ? read.grid[0][c] : '') || `column${c + 1}`));
    const rows = read.grid.slice(header ? 1 : 0).map((row) => row.map(typeCell));
    const records = rows.map((row) => Object.fromEntries(columns.map((column, c) => [column, row[c]])));
    const notes = [...read.notes];
    if (rows.length === 0) notes.push('only a header row was found, so the table has no data rows');
    return { columns, rows, records, rowCount: rows.length, text: read.text, notes };
  },
});

/** A PNG with its grid lines painted over (see removeRules); JPEGs go to tesseract as they are. */
function withoutRules(bytes: Buffer, mimeType: ImageMimeType): Buffer {
  if (mimeType !== 'image/png') return bytes;
  const pixels = decodePng(bytes, '/imageBase64');
  return removeRules(pixels) > 0 ? encodeGreyPng(pixels) : bytes;
}

function uniqueNames(names: string[]): string[] {
  const seen = new Map<string, number>();
  return names.map((name) => {
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    return n === 1 ? name : `${name}_${n}`;
  });
}
