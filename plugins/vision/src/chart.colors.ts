/** RGBA pixels, row by row. */
export interface Pixels {
  width: number;
  height: number;
  data: Uint8ClampedArray | Uint8Array;
}

export interface ColorCount {
  hex: string;
  pixels: number;
}

/**
 * Below this spread between the strongest and weakest channel a pixel is grey, white or black: text,
 * axes, grid lines and background.
 */
const MIN_CHROMA = 48;
/** How far (RGB distance) a colour may be from an exact mix of a series colour and a grey. */
const MIX_TOLERANCE = 12;

type Rgb = [number, number, number];

const chroma = (data: Pixels['data'], i: number) => Math.max(data[i], data[i + 1], data[i + 2]) - Math.min(data[i], data[i + 1], data[i + 2]);
const rgbOf = (key: number): Rgb => [(key >> 16) & 255, (key >> 8) & 255, key & 255];
const spread = (c: Rgb) => Math.max(...c) - Math.min(...c);

/**
 * Whether `c` is `pure` mixed with some grey (white background, grid line, black text), as
 * anti-aliased edges are: c = a * pure + (1 - a) * g for a in (0, 1] and a grey level g in [0, 255].
 * The colour part (each channel minus the mean) scales by a, the mean moves towards g.
 */
function isMixOf(c: Rgb, pure: Rgb): boolean {
  const mean = (x: Rgb) => (x[0] + x[1] + x[2]) / 3;
  const u = pure.map((v) => v - mean(pure));
  const w = c.map((v) => v - mean(c));
  const a = (u[0] * w[0] + u[1] * w[1] + u[2] * w[2]) / (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
  if (a <= 0 || a > 1.05) return false;
  const residual = Math.hypot(w[0] - a * u[0], w[1] - a * u[1], w[2] - a * u[2]);
  const grey = a >= 0.98 ? mean(c) : (mean(c) - a * mean(pure)) / (1 - a);
  return residual <= MIX_TOLERANCE && grey >= -MIX_TOLERANCE && grey <= 255 + MIX_TOLERANCE;
}

/**
 * The saturated colours a chart is drawn with, most used first. A series' colour is an exact RGB value
 * repeated over many pixels (line cores, markers, bars, its legend swatch); only exact values covering
 * at least `minShare` of the image (and at least 24 pixels) count. Anti-aliased edges repeat too along a
 * straight line, but each is the series colour mixed with a grey, so it is added to the most saturated
 * colour it is a mix of. Greys never count, so a black or grey series is not seen; lossy (JPEG) images
 * blur exact values and are not supported.
 */
export function seriesColors(image: Pixels, minShare = 0.0002): ColorCount[] {
  const counts = new Map<number, number>();
  const { data } = image;
  for (let i = 0; i < data.length; i += 4) {
    if (data[i + 3] < 128 || chroma(data, i) < MIN_CHROMA) continue;
    const key = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const threshold = Math.max(24, minShare * image.width * image.height);
  const frequent = [...counts].filter(([, pixels]) => pixels >= threshold).map(([key, pixels]) => ({ rgb: rgbOf(key), pixels }));
  const series: { rgb: Rgb; pixels: number }[] = [];
  for (const color of frequent.sort((a, b) => spread(b.rgb) - spread(a.rgb))) {
    const pure = series.find((s) => isMixOf(color.rgb, s.rgb));
    if (pure) pure.pixels += color.pixels;
    else series.push({ ...color });
  }
  return series
    .sort((a, b) => b.pixels - a.pixels)
    .map(({ rgb, pixels }) => ({
      hex: `#${rgb
        .map((v) => v.toString(16).padStart(2, '0'))
        .join('')
        .toUpperCase()}`,
      pixels,
    }));
}

/** A row with fewer saturated pixels than this only has stray ones (fringes of anti-aliased text). */
const MIN_COLORED_IN_ROW = 3;

/**
 * How many rows from the top hold the title: everything above the first row with saturated pixels
 * (the legend or the plot), capped at 30% of the height; 15% when the top has no colour at all.
 */
export function titleBandHeight(image: Pixels): number {
  const cap = Math.max(1, Math.round(image.height * 0.3));
  for (let y = 0; y < cap; y++) {
    let colored = 0;
    for (let x = 0; x < image.width; x++) {
      const i = (y * image.width + x) * 4;
      if (image.data[i + 3] >= 128 && chroma(image.data, i) >= MIN_CHROMA) colored++;
    }
    if (colored >= MIN_COLORED_IN_ROW) return Math.max(1, y);
  }
  return Math.max(1, Math.round(image.height * 0.15));
}
