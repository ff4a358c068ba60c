import { defineTool, ErrorCode, ToolgateError } from '@toolgate/sdk';
import { chartFont } from './chart.fonts';
import { renderChart, type Series } from './chart.renderer';

export interface RenderArgs {
  type: 'line' | 'bar';
  title: string;
  labels: string[];
  series: Series[];
  width?: number;
  height?: number;
  xLabel?: string;
  yLabel?: string;
  beginAtZero?: boolean;
}

export interface RenderOutput {
  pngBase64: string;
  width: number;
  height: number;
  mimeType: 'image/png';
  seriesCount: number;
  title: string;
}

export const renderTool = defineTool<RenderArgs, RenderOutput>({
  name: 'render',
  title: 'Render a line or bar chart',
  description:
    'Draws a line chart or a (grouped) bar chart as a PNG image from category labels and one or more named data series, with a large title, ' +
    'a legend, y-axis ticks with grid lines, x-axis labels and optional axis titles; returns the PNG as base64. Use it to visualise, plot or graph ' +
    'numbers: "plot monthly revenue for 2024", "bar chart comparing sales per region", "chart these two series over time". Missing values (null) ' +
    'leave a gap. Do NOT use it to compute the numbers (aggregate a table first with table/group-by, or calculate with calculator/evaluate), ' +
    'for pie, scatter or map charts (not supported), or to save the image to a file (pass the base64 to files/write).',
  category: ['data', 'visualization'],
  tags: ['chart', 'plot', 'graph', 'line chart', 'bar chart', 'png', 'image', 'visualize', 'dashboard'],
  inputSchema: {
    type: 'object',
    properties: {
      type: { type: 'string', enum: ['line', 'bar'], description: 'line (trends over an ordered axis) or bar (comparing categories).' },
      title: { type: 'string', minLength: 1, maxLength: 120, description: 'Chart title, drawn large at the top.' },
      labels: {
        type: 'array',
        minItems: 1,
        maxItems: 500,
        items: { type: 'string', maxLength: 40 },
        description: 'X-axis category labels, e.g. ["Jan", "Feb", "Mar"].',
      },
      series: {
        type: 'array',
        minItems: 1,
        maxItems: 12,
        description: 'Data series; each has one value per label.',
        items: {
          type: 'object',
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 60, description: 'Series name shown in the legend.' },
            values: {
              type: 'array',
              maxItems: 500,
              items: { type: ['number', 'null'] },
              description: 'One value per label, in the same order; null for a missing value.',
            },
            color: { type: 'string', pattern: '^#[0-9A-Fa-f]{6}$', description: 'Colour as #RRGGBB; a colour-blind-safe palette is used by default.' },
          },
          required: ['name', 'values'],
          additionalProperties: false,
        },
      },
      width: { type: 'integer', minimum: 200, maximum: 2400, default: 800, description: 'Image width in pixels (default 800).' },
      height: { type: 'integer', minimum: 150, maximum: 2400, default: 500, description: 'Image height in pixels (default 500).' },
      xLabel: { type: 'string', maxLength: 80, description: 'Title of the x axis.' },
      yLabel: { type: 'string', maxLength: 80, description: 'Title of the y axis.' },
      beginAtZero: { type: 'boolean', description: 'Start the y axis at 0; default true for bar charts, false for line charts.' },
    },
    required: ['type', 'title', 'labels', 'series'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      pngBase64: { type: 'string', contentEncoding: 'base64', contentMediaType: 'image/png', description: 'The PNG image, base64-encoded.' },
      width: { type: 'integer', description: 'Image width in pixels.' },
      height: { type: 'integer', description: 'Image height in pixels.' },
      mimeType: { type: 'string', const: 'image/png', description: 'Always image/png.' },
      seriesCount: { type: 'integer', description: 'Number of series drawn.' },
      title: { type: 'string', description: 'The chart title.' },
    },
    required: ['pngBase64', 'width', 'height', 'mimeType', 'seriesCount', 'title'],
    additionalProperties: false,
  },
  examples: [
    {
      query: 'Plot monthly revenue for Q1: 120, 135, 160',
      arguments: { type: 'line', title: 'Revenue Q1', labels: ['Jan', 'Feb', 'Mar'], series: [{ name: 'Revenue', values: [120, 135, 160] }], yLabel: 'kEUR' },
    },
    {
      query: 'Bar chart comparing 2023 and 2024 sales per region',
      arguments: {
        type: 'bar',
        title: 'Sales by region',
        labels: ['North', 'South', 'East', 'West'],
        series: [
          { name: '2023', values: [40, 32, 18, 25] },
          { name: '2024', values: [46, 30, 24, 31] },
        ],
        width: 900,
        height: 540,
      },
    },
  ],
  permissions: { scopes: [], risk: 'read' },
  limits: { timeoutMs: 15_000, maxConcurrency: 4, retries: 0, idempotent: true },
  healthCheck: async () => {
    const font = chartFont();
    return font ? { healthy: true, detail: `font "${font}"` } : { healthy: false, detail: 'no font installed; set TOOLGATE_CHART_FONT to a .ttf file' };
  },
  async run(args, ctx) {
    args.series.forEach((series, i) => {
      if (series.values.length !== args.labels.length) {
        const message = `series "${series.name}" has ${series.values.length} values for ${args.labels.length} labels`;
        throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, message, [{ path: `/series/${i}/values`, message }]);
      }
    });
    if (!args.series.some((series) => series.values.some((v) => v !== null && Number.isFinite(v)))) {
      throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, 'there is no value to plot', [{ path: '/series', message: 'every value is null' }]);
    }
    ctx.signal.throwIfAborted();
    const font = chartFont();
    if (!font) throw new ToolgateError(ErrorCode.TOOL_FAILED, 'no font is installed to draw chart text; set TOOLGATE_CHART_FONT to a .ttf file');
    const width = args.width ?? 800;
    const height = args.height ?? 500;
    const png = await renderChart({
      type: args.type,
      title: args.title,
      labels: args.labels,
      series: args.series,
      width,
      height,
      xLabel: args.xLabel,
      yLabel: args.yLabel,
      beginAtZero: args.beginAtZero ?? args.type === 'bar',
      font,
    });
    ctx.signal.throwIfAborted();
    return { pngBase64: png.toString('base64'), width, height, mimeType: 'image/png', seriesCount: args.series.length, title: args.title };
  },
});
