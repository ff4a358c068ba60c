import { type Canvas, createCanvas, GlobalFonts, type SKRSContext2D } from '@napi-rs/canvas';

/**
 * Images with known text, made offline for OCR and vision tests (a line of text, a table screenshot).
 * Drawn with @napi-rs/canvas (Skia) in a system sans-serif font; `scripts/ensure-tesseract.sh`
 * installs fonts-dejavu-core next to tesseract on a bare machine.
 */

const PREFERRED_FONTS = ['DejaVu Sans', 'Liberation Sans', 'Noto Sans', 'Arial', 'Helvetica'];

export function textFont(): string {
  const families = GlobalFonts.families.map((f) => f.family);
  const font = PREFERRED_FONTS.find((family) => families.includes(family));
  // Skia silently draws no text without a font: an image with no text would fail tests confusingly.
  if (!font) throw new Error(`no sans-serif font to draw test images with (found: ${families.join(', ') || 'none'}); run \`apt-get install -y fonts-dejavu-core\``);
  return font;
}

export type ImageMime = 'image/png' | 'image/jpeg' | 'image/webp';

export interface TextImageOptions {
  /** Font size in pixels; default 28. */
  fontSize?: number;
  /** Default image/png. */
  mimeType?: ImageMime;
}

export interface TableImageOptions extends TextImageOptions {
  /** Draw the header row in bold with a rule under it (like a spreadsheet screenshot); default true. */
  header?: boolean;
  /** Draw grid lines between cells; default false. */
  grid?: boolean;
}

const PADDING = 24;

function encode(canvas: Canvas, mimeType: ImageMime): Buffer {
  if (mimeType === 'image/png') return canvas.toBuffer('image/png');
  return mimeType === 'image/jpeg' ? canvas.toBuffer('image/jpeg', 95) : canvas.toBuffer('image/webp', 95);
}

function page(width: number, height: number): { canvas: Canvas; g: SKRSContext2D } {
  const canvas = createCanvas(Math.ceil(width), Math.ceil(height));
  const g = canvas.getContext('2d');
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, canvas.width, canvas.height);
  g.fillStyle = '#111111';
  g.textBaseline = 'top';
  return { canvas, g };
}

/** Lines of dark text on white, one under the other. */
export function renderTextImage(lines: string | string[], options: TextImageOptions = {}): Buffer {
  const texts = typeof lines === 'string' ? [lines] : lines;
  const size = options.fontSize ?? 28;
  const font = `${size}px "${textFont()}"`;
  const measure = page(1, 1).g;
  measure.font = font;
  const width = Math.max(...texts.map((t) => measure.measureText(t).width)) + 2 * PADDING;
  const lineHeight = Math.round(size * 1.6);
  const { canvas, g } = page(width, texts.length * lineHeight + 2 * PADDING);
  g.font = font;
  for (const [i, text] of texts.entries()) g.fillText(text, PADDING, PADDING + i * lineHeight);
  return encode(canvas, options.mimeType ?? 'image/png');
}

/** A table like a spreadsheet screenshot: left-aligned columns sized to their widest cell. */
export function renderTableImage(rows: string[][], options: TableImageOptions = {}): Buffer {
  const size = options.fontSize ?? 24;
  const family = textFont();
  const header = options.header ?? true;
  const fontOf = (row: number) => `${header && row === 0 ? 'bold ' : ''}${size}px "${family}"`;
  const measure = page(1, 1).g;
  const columns = Math.max(...rows.map((r) => r.length));
  const cellGap = size * 2;
  const widths = Array.from({ length: columns }, (_, c) =>
    Math.max(
      ...rows.map((row, r) => {
        measure.font = fontOf(r);
        return measure.measureText(row[c] ?? '').width;
      }),
    ),
  );
  const lefts = widths.map((_, c) => PADDING + widths.slice(0, c).reduce((sum, w) => sum + w + cellGap, 0));
  const rowHeight = Math.round(size * 1.8);
  const width = lefts[columns - 1] + widths[columns - 1] + PADDING;
  const { canvas, g } = page(width, rows.length * rowHeight + 2 * PADDING);
  for (const [r, row] of rows.entries()) {
    g.font = fontOf(r);
    const top = PADDING + r * rowHeight;
    for (const [c, cell] of row.entries()) g.fillText(cell, lefts[c], top + size * 0.4);
    if ((header && r === 0) || options.grid) {
      g.fillRect(PADDING / 2, top + rowHeight - 1, width - PADDING, 1);
    }
  }
  if (options.grid) for (const left of lefts.slice(1)) g.fillRect(left - cellGap / 2, PADDING, 1, rows.length * rowHeight);
  return encode(canvas, options.mimeType ?? 'image/png');
}
