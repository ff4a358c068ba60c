import { defineTool } from '@toolgate/sdk';
import { type ColorCount, type Pixels, seriesColors, titleBandHeight } from './chart.colors';
import { EXAMPLE_CHART_PNG } from './example.images';
import { decodeImage, MAX_BASE64_LENGTH } from './image-input.decoder';
import { wordsFromTsv } from './ocr-table.parser';
import { decodePng, encodeGreyPng } from './png.codec';
import { recognizeTsv, tesseractHealth } from './tesseract.ocr';

export interface InspectChartArgs {
  pngBase64: string;
  expectedTitle?: string;
}

export interface InspectChartOutput {
  title: string;
  seriesCount: number;
  colors: ColorCount[];
  width: number;
  height: number;
  titleMatches?: boolean;
}

const TIMEOUT_MS = 20_000;

/** Case, spacing and punctuation do not make two titles different. */
export const normaliseTitle = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

export const inspectChartTool = defineTool<InspectChartArgs, InspectChartOutput>({
  name: 'inspect-chart',
  title: 'Check a chart image: title and series count',
  description:
    'Looks at a chart image (PNG) and reports its title, read with local OCR from the band above the legend and plot, and how many data ' +
    'series it shows, counted as distinct saturated colours drawn over enough pixels (greys, black and white are axes, text and ' +
    'background). With expectedTitle it also says whether the title matches, ignoring case and punctuation. Use it to verify a chart ' +
    'made by chart/render before sending it on: "check that the chart is titled Revenue by quarter and has two lines". Do NOT use it ' +
    'to read the numbers of a chart or a table (use vision/extract-table for tables), for photos or JPEG images (compression blurs the ' +
    'colours it counts), or for charts whose series are drawn in grey or black.',
  category: ['data', 'vision', 'visualization'],
  tags: ['chart', 'image', 'verify', 'check', 'title', 'series', 'ocr', 'png', 'quality'],
  inputSchema: {
    type: 'object',
    properties: {
      pngBase64: {
        type: 'string',
        minLength: 1,
        maxLength: MAX_BASE64_LENGTH,
        contentEncoding: 'base64',
        contentMediaType: 'image/png',
        description: 'The chart as a base64 PNG (at most 10 MB), e.g. the pngBase64 output of chart/render.',
      },
      expectedTitle: { type: 'string', minLength: 1, maxLength: 200, description: 'The title the chart should have; sets titleMatches.' },
    },
    required: ['pngBase64'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      title: { type: 'string', description: 'The title as read ("" when the top of the image has no text).' },
      seriesCount: { type: 'integer', minimum: 0, description: 'Number of distinct saturated colours drawn, i.e. of coloured series.' },
      colors: {
        type: 'array',
        description: 'Those colours, most pixels first.',
        items: {
          type: 'object',
          properties: { hex: { type: 'string', pattern: '^#[0-9A-F]{6}$' }, pixels: { type: 'integer' } },
          required: ['hex', 'pixels'],
          additionalProperties: false,
        },
      },
      width: { type: 'integer', description: 'Image width in pixels.' },
      height: { type: 'integer', description: 'Image height in pixels.' },
      titleMatches: { type: 'boolean', description: 'Given expectedTitle: whether the title read equals it, ignoring case, spacing and punctuation.' },
    },
    required: ['title', 'seriesCount', 'colors', 'width', 'height'],
    additionalProperties: false,
  },
  examples: [
    {
      query: 'Check that the chart is titled Revenue and has one series',
      arguments: { pngBase64: EXAMPLE_CHART_PNG, expectedTitle: 'Revenue' },
      output: { title: 'Revenue', seriesCount: 1, colors: [{ hex: '#0072B2', pixels: 1248 }], width: 320, height: 200, titleMatches: true },
    },
  ],
  permissions: { scopes: ['proc:tesseract'], risk: 'read' },
  limits: { timeoutMs: TIMEOUT_MS + 5_000, maxConcurrency: 2, retries: 0, idempotent: true },
  healthCheck: tesseractHealth,
  async run(args, ctx) {
    const { bytes } = decodeImage(args.pngBase64, '/pngBase64', ['image/png']);
    const pixels = decodePng(bytes, '/pngBase64');
    ctx.signal.throwIfAborted();
    const colors = seriesColors(pixels);
    const title = await readTitle(pixels, ctx.signal);
    return {
      title,
      seriesCount: colors.length,
      colors,
      width: pixels.width,
      height: pixels.height,
      ...(args.expectedTitle === undefined ? {} : { titleMatches: normaliseTitle(title) === normaliseTitle(args.expectedTitle) }),
    };
  },
});

/** OCR of the band above the first coloured row, as one line of words. */
async function readTitle(pixels: Pixels, signal: AbortSignal): Promise<string> {
  const tsv = await recognizeTsv(encodeGreyPng(pixels, titleBandHeight(pixels)), signal, TIMEOUT_MS, '/pngBase64');
  return wordsFromTsv(tsv)
    .map((word) => word.text)
    .join(' ');
}
