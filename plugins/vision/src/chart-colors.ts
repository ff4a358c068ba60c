/** RGBA pixels, row by row (what a canvas's getImageData returns). */
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
/** Exact colours closer than this (RGB distance) are one colour drawn with slight variations. */
const SAME_COLOR_DISTANCE = 24;

const chroma = (data: Pixels['data'], i: number) => Math.max(data[i], data[i + 1], data[i + 2]) - Math.min(data[i], data[i + 1], data[i + 2]);

/**
 * The saturated colours a chart is drawn with, most used first. A series' colour is an exact RGB value
 * repeated over many pixels (line cores, markers, bars, its legend swatch), while anti-aliased edges
 * spread over many values with few pixels each; so only exact values covering at least `minShare` of
 * the image (and at least 24 pixels) count. Close values are merged. Greys never count, so a black or
 * grey series is not seen; lossy (JPEG) images blur exact values and are not supported.
 */
export function seriesColors(image: Pixels, minShare = 0.0002): ColorCount[] {
  const counts = new Map<number, number>();
  const { data } = image;
  for (let i = 0; i < data.length; i += 4) {
    if (data[i + 3] < 128 || chroma(data, i) < MIN_CHROMA) continue;
    const rgb = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
    counts.set(rgb, (counts.get(rgb) ?? 0) + 1);
  }
  const threshold = Math.max(24, minShare * image.width * image.height);
  const colors: { rgb: number; pixels: number }[] = [];
  for (const [rgb, pixels] of [...counts].sort((a, b) => b[1] - a[1])) {
    if (pixels < threshold) break;
    const near = colors.find((c) => distance(c.rgb, rgb) < SAME_COLOR_DISTANCE);
    if (near) near.pixels += pixels;
    else colors.push({ rgb, pixels });
  }
  return colors.map(({ rgb, pixels }) => ({ hex: `#${rgb.toString(16).padStart(6, '0').toUpperCase()}`, pixels }));
}

function distance(a: number, b: number): number {
  const dr = ((a >> 16) & 255) - ((b >> 16) & 255);
  const dg = ((a >> 8) & 255) - ((b >> 8) & 255);
  const db = (a & 255) - (b & 255);
  return Math.sqrt(dr * dr + dg * dg + db * db);
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
