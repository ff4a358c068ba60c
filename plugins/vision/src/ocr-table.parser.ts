/** One recognised word of tesseract's TSV output (level 5), with its box in pixels. */
export interface OcrWord {
  line: string;
  left: number;
  right: number;
  height: number;
  confidence: number;
  text: string;
}

export type TableCell = string | number | null;

export interface OcrTable {
  /** Every row read, header included, one entry per column ('' where a row has no cell there). */
  grid: string[][];
  /** The rows as tab-separated cells, one line each, as read (before any fix or typing). */
  text: string;
  /** What was changed on the way (OCR confusions fixed), for the caller to see. */
  notes: string[];
}

/**
 * A gap wider than this many line heights separates two cells, not two words of one cell (a space is
 * about a third of the height; spreadsheet columns are a few heights apart).
 */
const CELL_GAP_IN_LINE_HEIGHTS = 1.2;

/** Tesseract reads rules and grid lines as runs of punctuation with low confidence. */
const isNoise = (word: OcrWord) => !/[\p{L}\p{N}]/u.test(word.text) && word.confidence < 60;

export function wordsFromTsv(tsv: string): OcrWord[] {
  const words: OcrWord[] = [];
  for (const row of tsv.split('\n').slice(1)) {
    const cells = row.split('\t');
    if (cells.length < 12 || cells[0] !== '5') continue;
    const text = cells.slice(11).join('\t').trim();
    if (!text) continue;
    const [block, paragraph, line, , left, , width, height, confidence] = cells.slice(2, 11).map(Number);
    const word = { line: `${block}.${paragraph}.${line}`, left, right: left + width, height, confidence, text };
    if (!isNoise(word)) words.push(word);
  }
  return words;
}

interface Span {
  left: number;
  right: number;
  text: string;
}

/** Splits each recognised line into cells where the gap between two words is wide. */
function cellsByLine(words: OcrWord[]): Span[][] {
  const lines: OcrWord[][] = [];
  for (const word of words) {
    const last = lines.at(-1);
    if (last && last[0].line === word.line) last.push(word);
    else lines.push([word]);
  }
  return lines.map((line) => {
    const height = Math.max(...line.map((w) => w.height));
    const cells: Span[] = [];
    for (const word of line) {
      const cell = cells.at(-1);
      if (cell && word.left - cell.right <= CELL_GAP_IN_LINE_HEIGHTS * height) {
        cell.text += ` ${word.text}`;
        cell.right = word.right;
      } else cells.push({ left: word.left, right: word.right, text: word.text });
    }
    return cells;
  });
}

/**
 * Columns are the x-ranges that cells of different rows share: overlapping cell ranges are merged, so
 * left-, right- or centre-aligned columns all come out as one range each.
 */
function columnRanges(lines: Span[][]): { left: number; right: number }[] {
  const spans = lines.flat().sort((a, b) => a.left - b.left);
  const ranges: { left: number; right: number }[] = [];
  for (const span of spans) {
    const last = ranges.at(-1);
    if (last && span.left <= last.right) last.right = Math.max(last.right, span.right);
    else ranges.push({ left: span.left, right: span.right });
  }
  return ranges;
}

const overlap = (a: { left: number; right: number }, b: { left: number; right: number }) => Math.min(a.right, b.right) - Math.max(a.left, b.left);

/** Rows of cells from tesseract TSV (psm 6), each cell placed in the column its x-range falls in. */
export function tableFromTsv(tsv: string): OcrTable {
  const lines = cellsByLine(wordsFromTsv(tsv));
  const ranges = columnRanges(lines);
  const texts = lines.map((cells) => {
    const row: string[] = ranges.map(() => '');
    for (const cell of cells) {
      const column = ranges.reduce((best, range, i) => (overlap(range, cell) > overlap(ranges[best], cell) ? i : best), 0);
      row[column] = row[column] ? `${row[column]} ${cell.text}` : cell.text;
    }
    return row;
  });
  const text = texts.map((row) => row.join('\t')).join('\n');
  return { grid: texts, text, notes: normaliseQuarterColumns(texts) };
}

const QUARTER = /^Q[1-4]$/;
/** `Ql`, `QI`, `Q|`, `O1`, `01`...: a quarter label with one of tesseract's usual confusions. */
const QUARTER_LIKE = /^[QO0]([1-4lI|!])$/i;

/**
 * Fixes quarter labels tesseract misreads (`Ql` for `Q1`, the most common) in place, only in a column
 * where that is unambiguous: at least half of its data cells already read `Q1`..`Q4` and every other
 * non-empty cell reads as a quarter after the fix. A column of `01`, `02` codes is left alone.
 */
export function normaliseQuarterColumns(rows: string[][]): string[] {
  const notes: string[] = [];
  const data = rows.slice(1);
  const width = Math.max(0, ...rows.map((r) => r.length));
  for (let c = 0; c < width; c++) {
    const cells = data.map((row) => row[c]).filter((cell) => cell);
    const exact = cells.filter((cell) => QUARTER.test(cell)).length;
    if (cells.length === 0 || exact * 2 < cells.length || !cells.every((cell) => QUARTER.test(cell) || QUARTER_LIKE.test(cell))) continue;
    const fixed = new Map<string, number>();
    for (const row of data) {
      const cell = row[c];
      if (!cell || QUARTER.test(cell)) continue;
      const quarter = `Q${cell[1].replace(/[lI|!]/i, '1')}`;
      fixed.set(`${cell}->${quarter}`, (fixed.get(`${cell}->${quarter}`) ?? 0) + 1);
      row[c] = quarter;
    }
    for (const [change, count] of fixed) {
      const [from, to] = change.split('->');
      notes.push(`column ${c + 1}${rows[0]?.[c] ? ` (${rows[0][c]})` : ''}: read "${from}" as "${to}" in ${count} cell${count === 1 ? '' : 's'}`);
    }
  }
  return notes;
}

const GROUPED = /^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;
const PLAIN = /^(?:0|[1-9]\d*)(?:\.\d+)?$|^0?\.\d+$/;

/**
 * A number for cells written as one (en-US): `1,010`, `$2,500.00`, `-3.5`, `(1,200)` (accounting
 * negative), `12.5%` (12.5: the value as shown); anything else, and zero-padded codes such as `007`,
 * stays text.
 */
export function parseNumber(text: string): number | undefined {
  let s = text.replace(/\s+/g, '');
  let sign = 1;
  if (/^\(.*\)$/.test(s)) {
    sign = -1;
    s = s.slice(1, -1);
  }
  if (/^[-\u2212]/.test(s)) {
    sign = -sign;
    s = s.slice(1);
  } else if (s.startsWith('+')) s = s.slice(1);
  s = s.replace(/^[$€£¥]/, '').replace(/%$/, '');
  if (!GROUPED.test(s) && !PLAIN.test(s)) return undefined;
  return sign * Number(s.replace(/,/g, ''));
}

/** A typed data cell: a number when it reads as one, null when empty, the text otherwise. */
export const typeCell = (cell: string): TableCell => (cell === '' ? null : (parseNumber(cell) ?? cell));
