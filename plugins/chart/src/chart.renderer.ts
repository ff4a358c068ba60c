import { createCanvas, type SKRSContext2D } from '@napi-rs/canvas';

export interface Series {
  name: string;
  values: (number | null)[];
  color?: string;
}

export interface ChartSpec {
  type: 'line' | 'bar';
  title: string;
  labels: string[];
  series: Series[];
  width: number;
  height: number;
  xLabel?: string;
  yLabel?: string;
  beginAtZero: boolean;
  font: string;
}

/** Okabe-Ito: distinguishable with the common forms of colour blindness, dark enough on white. */
const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#D55E00', '#CC79A7', '#56B4E9', '#000000', '#F0E442'];

const INK = '#111111';
const MUTED = '#444444';
const GRID = '#E3E3E3';

export async function renderChart(spec: ChartSpec): Promise<Buffer> {
  const { width, height, font } = spec;
  const canvas = createCanvas(width, height);
  const g = canvas.getContext('2d');
  g.fillStyle = '#FFFFFF';
  g.fillRect(0, 0, width, height);

  const pad = Math.round(Math.max(12, width * 0.025));
  const titleSize = Math.round(Math.min(40, Math.max(20, width / 24)));
  const textSize = Math.round(Math.min(20, Math.max(12, width / 55)));
  let top = pad;

  g.fillStyle = INK;
  g.textBaseline = 'top';
  g.textAlign = 'center';
  g.font = `bold ${titleSize}px "${font}"`;
  top += drawWrapped(g, spec.title, width / 2, top, width - 2 * pad, titleSize * 1.2) + Math.round(titleSize * 0.4);

  top += drawLegend(g, spec, pad, top, textSize) + Math.round(textSize * 0.6);

  const values = spec.series.flatMap((s) => s.values).filter((v): v is number => v !== null && Number.isFinite(v));
  const scale = niceScale(Math.min(...values), Math.max(...values), spec.beginAtZero, Math.max(3, Math.floor((height - top) / 60)));
  g.font = `${textSize}px "${font}"`;
  const tickLabels = scale.ticks.map((t) => formatTick(t, scale.step));
  const yAxisTitle = spec.yLabel ? textSize * 1.6 : 0;
  const left = pad + yAxisTitle + Math.max(...tickLabels.map((t) => g.measureText(t).width)) + 10;
  const bottom = height - pad - textSize * 1.6 - (spec.xLabel ? textSize * 1.6 : 0);
  const right = width - pad;
  const plot = { left, right, top, bottom, width: right - left, height: bottom - top };
  const y = (v: number) => plot.bottom - ((v - scale.min) / (scale.max - scale.min)) * plot.height;

  g.lineWidth = 1;
  g.textAlign = 'right';
  g.textBaseline = 'middle';
  scale.ticks.forEach((tick, i) => {
    g.strokeStyle = GRID;
    line(g, plot.left, y(tick), plot.right, y(tick));
    g.fillStyle = MUTED;
    g.fillText(tickLabels[i], plot.left - 8, y(tick));
  });

  const n = spec.labels.length;
  const band = plot.width / n;
  const x = (i: number) => plot.left + band * (i + 0.5);
  if (spec.type === 'bar') drawBars(g, spec, band, x, y, scale.min, scale.max);
  else drawLines(g, spec, x, y);

  g.strokeStyle = INK;
  g.lineWidth = 2;
  line(g, plot.left, plot.top, plot.left, plot.bottom);
  line(g, plot.left, y(Math.max(scale.min, Math.min(0, scale.max))), plot.right, y(Math.max(scale.min, Math.min(0, scale.max))));

  g.fillStyle = MUTED;
  g.textAlign = 'center';
  g.textBaseline = 'top';
  g.font = `${textSize}px "${font}"`;
  const widest = Math.max(...spec.labels.map((l) => g.measureText(l).width));
  const every = Math.max(1, Math.ceil((widest + 12) / band));
  spec.labels.forEach((label, i) => {
    if (i % every === 0) g.fillText(label, x(i), plot.bottom + 6);
  });

  g.fillStyle = INK;
  if (spec.xLabel) g.fillText(spec.xLabel, plot.left + plot.width / 2, height - pad - textSize * 1.2);
  if (spec.yLabel) {
    g.save();
    g.translate(pad, plot.top + plot.height / 2);
    g.rotate(-Math.PI / 2);
    g.fillText(spec.yLabel, 0, 0);
    g.restore();
  }
  return canvas.encode('png');
}

function line(g: SKRSContext2D, x1: number, y1: number, x2: number, y2: number): void {
  g.beginPath();
  g.moveTo(x1, y1);
  g.lineTo(x2, y2);
  g.stroke();
}

/** Draws centred text, wrapping on spaces; returns the height used. */
function drawWrapped(g: SKRSContext2D, text: string, cx: number, top: number, maxWidth: number, lineHeight: number): number {
  const lines: string[] = [];
  for (const word of text.split(/\s+/)) {
    const last = lines[lines.length - 1];
    if (last !== undefined && g.measureText(`${last} ${word}`).width <= maxWidth) lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  lines.slice(0, 3).forEach((l, i) => {
    g.fillText(l, cx, top + i * lineHeight);
  });
  return Math.min(lines.length, 3) * lineHeight;
}

/** One row (or more) of colour swatches with series names, centred; returns the height used. */
function drawLegend(g: SKRSContext2D, spec: ChartSpec, pad: number, top: number, size: number): number {
  g.font = `${size}px "${spec.font}"`;
  g.textAlign = 'left';
  g.textBaseline = 'middle';
  const items = spec.series.map((s, i) => ({ name: s.name, color: colorOf(s, i), width: size * 1.4 + g.measureText(s.name).width }));
  const gap = size * 1.5;
  const rows: (typeof items)[] = [[]];
  let used = 0;
  for (const item of items) {
    if (used > 0 && used + gap + item.width > spec.width - 2 * pad) {
      rows.push([]);
      used = 0;
    }
    rows[rows.length - 1].push(item);
    used += (used > 0 ? gap : 0) + item.width;
  }
  const lineHeight = size * 1.5;
  rows.forEach((row, r) => {
    const total = row.reduce((sum, item) => sum + item.width, 0) + gap * (row.length - 1);
    let cursor = (spec.width - total) / 2;
    const cy = top + r * lineHeight + lineHeight / 2;
    for (const item of row) {
      g.fillStyle = item.color;
      g.fillRect(cursor, cy - size / 2, size, size);
      g.fillStyle = INK;
      g.fillText(item.name, cursor + size * 1.4, cy);
      cursor += item.width + gap;
    }
  });
  return rows.length * lineHeight;
}

function drawBars(g: SKRSContext2D, spec: ChartSpec, band: number, x: (i: number) => number, y: (v: number) => number, min: number, max: number): void {
  const group = band * 0.8;
  const barWidth = group / spec.series.length;
  const base = y(Math.max(min, Math.min(0, max)));
  spec.series.forEach((series, s) => {
    g.fillStyle = colorOf(series, s);
    series.values.forEach((value, i) => {
      if (value === null) return;
      const left = x(i) - group / 2 + s * barWidth;
      const top = y(value);
      g.fillRect(left + 1, Math.min(top, base), Math.max(1, barWidth - 2), Math.abs(base - top));
    });
  });
}

function drawLines(g: SKRSContext2D, spec: ChartSpec, x: (i: number) => number, y: (v: number) => number): void {
  spec.series.forEach((series, s) => {
    const color = colorOf(series, s);
    g.strokeStyle = color;
    g.fillStyle = color;
    g.lineWidth = 3;
    g.lineJoin = 'round';
    g.beginPath();
    let drawing = false;
    series.values.forEach((value, i) => {
      // A missing value breaks the line rather than dropping to zero.
      if (value === null) {
        drawing = false;
        return;
      }
      if (drawing) g.lineTo(x(i), y(value));
      else g.moveTo(x(i), y(value));
      drawing = true;
    });
    g.stroke();
    series.values.forEach((value, i) => {
      if (value === null) return;
      g.beginPath();
      g.arc(x(i), y(value), 4, 0, Math.PI * 2);
      g.fill();
    });
  });
}

const colorOf = (series: Series, index: number): string => series.color ?? PALETTE[index % PALETTE.length];

/** Axis bounds and ticks on round numbers (1, 2, 2.5, 5 x 10^k). */
export function niceScale(lo: number, hi: number, beginAtZero: boolean, maxTicks: number): { min: number; max: number; step: number; ticks: number[] } {
  let min = beginAtZero ? Math.min(0, lo) : lo;
  let max = beginAtZero ? Math.max(0, hi) : hi;
  if (min === max) {
    min -= Math.abs(min) * 0.5 || 1;
    max += Math.abs(max) * 0.5 || 1;
  }
  const raw = (max - min) / maxTicks;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * magnitude >= raw) ?? 10) * magnitude;
  const niceMin = Math.floor(min / step) * step;
  const niceMax = Math.ceil(max / step) * step;
  const ticks: number[] = [];
  for (let t = niceMin; t <= niceMax + step / 2; t += step) ticks.push(Number(t.toPrecision(12)));
  return { min: niceMin, max: niceMax, step, ticks };
}

function formatTick(value: number, step: number): string {
  const decimals = Math.max(0, -Math.floor(Math.log10(step)) + (step / 10 ** Math.floor(Math.log10(step)) === 2.5 ? 1 : 0));
  return new Intl.NumberFormat('en-US', { maximumFractionDigits: Math.min(decimals, 10) }).format(value);
}
