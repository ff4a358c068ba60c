import { GlobalFonts } from '@napi-rs/canvas';

/** Sans-serif families that read well at small sizes, in order of preference. */
const PREFERRED = ['DejaVu Sans', 'Liberation Sans', 'Noto Sans', 'Arial', 'Helvetica', 'Roboto', 'Open Sans', 'Ubuntu', 'Cantarell'];
const ALIAS = 'Toolgate Chart';

let chosen: string | undefined;

/**
 * The font family charts are drawn with. Skia draws nothing for text when no font is installed, which
 * would silently produce charts without a title or labels, so callers treat `undefined` as a failure.
 * `TOOLGATE_CHART_FONT` may point at a .ttf/.otf file for hosts without system fonts.
 */
export function chartFont(): string | undefined {
  if (chosen) return chosen;
  const file = process.env.TOOLGATE_CHART_FONT;
  if (file && GlobalFonts.registerFromPath(file, ALIAS)) {
    chosen = ALIAS;
    return chosen;
  }
  const families = GlobalFonts.families.map((f) => f.family);
  chosen = PREFERRED.find((family) => families.includes(family)) ?? families.find((family) => !/mono|math|symbol|emoji|dingbat/i.test(family)) ?? families[0];
  return chosen;
}
