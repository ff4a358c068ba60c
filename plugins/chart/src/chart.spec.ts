import { ErrorCode } from '@toolgate/sdk';
import { testContext, toolTester } from '@toolgate/sdk/testing';
import { tools } from './index';

const { byName, call, failure, conformance } = toolTester(tools);

const ctx = (signal?: AbortSignal) => testContext({ signal });
async function expectInvalid(name: string, args: Record<string, unknown>, path: string): Promise<void> {
  const error = await failure(name, args);
  expect({ code: error.code, paths: error.details.map((d) => d.path) }).toEqual({ code: ErrorCode.INVALID_ARGUMENTS, paths: expect.arrayContaining([path]) });
}

import { createCanvas, GlobalFonts, loadImage } from '@napi-rs/canvas';
import { chartFont } from './chart.fonts';
import { niceScale } from './chart.renderer';

it('every chart tool meets the sdk contract and says when not to use it', async () => {
  expect(await conformance({ minExamples: 2, maxExamples: 4, descriptionPattern: /do not use/i })).toEqual({});
});

/** Fraction of near-black pixels in a horizontal band of the image: the title and legend text are drawn in #111. */
async function darkShare(pngBase64: string, fromY: number, toY: number): Promise<number> {
  const image = await loadImage(Buffer.from(pngBase64, 'base64'));
  const canvas = createCanvas(image.width, image.height);
  const g = canvas.getContext('2d');
  g.drawImage(image, 0, 0);
  const { data } = g.getImageData(0, fromY, image.width, toY - fromY);
  let dark = 0;
  for (let i = 0; i < data.length; i += 4) if (data[i] < 60 && data[i + 1] < 60 && data[i + 2] < 60) dark++;
  return dark / (data.length / 4);
}

describe('chart/render', () => {
  it('has a font to draw text with on this machine', () => {
    expect(GlobalFonts.families.length).toBeGreaterThan(0);
    expect(chartFont()).toEqual(expect.any(String));
  });

  it('reports healthy when a font is available', async () => {
    await expect(byName('render').healthCheck?.(new AbortController().signal)).resolves.toMatchObject({ healthy: true });
  });

  it.each(['line', 'bar'] as const)('renders a %s chart as a decodable PNG of the requested size with visible title text', async (type) => {
    const output = await call('render', {
      type,
      title: 'Quarterly Revenue',
      labels: ['Q1', 'Q2', 'Q3', 'Q4'],
      series: [
        { name: 'Europe', values: [10, 12.5, null, 18] },
        { name: 'Asia', values: [-4, 8, 11, 9] },
      ],
      width: 640,
      height: 400,
      xLabel: 'Quarter',
      yLabel: 'MEUR',
    });
    expect(output).toMatchObject({ width: 640, height: 400, mimeType: 'image/png', seriesCount: 2, title: 'Quarterly Revenue' });
    const png = Buffer.from(output.pngBase64 as string, 'base64');
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    const image = await loadImage(png);
    expect([image.width, image.height]).toEqual([640, 400]);
    expect(await darkShare(output.pngBase64 as string, 10, 50)).toBeGreaterThan(0.02);
  });

  it('finds no dark pixels in the title band without a title text, so the probe above measures the title', async () => {
    const output = await call('render', { type: 'bar', title: '.', labels: ['a'], series: [{ name: 's', values: [1] }], width: 640, height: 400 });
    expect(await darkShare(output.pngBase64 as string, 10, 50)).toBeLessThan(0.005);
  });

  it('rejects series whose length does not match the labels', async () => {
    await expectInvalid(
      'render',
      {
        type: 'bar',
        title: 'x',
        labels: ['a', 'b'],
        series: [
          { name: 'ok', values: [1, 2] },
          { name: 'short', values: [1] },
        ],
      },
      '/series/1/values',
    );
    await expectInvalid('render', { type: 'line', title: 'x', labels: ['a'], series: [{ name: 'empty', values: [null] }] }, '/series');
  });

  it('stops when the call is cancelled', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    await expect(call('render', { type: 'bar', title: 'x', labels: ['a'], series: [{ name: 's', values: [1] }] }, ctx(controller.signal))).rejects.toThrow('cancelled');
  });

  it('puts axis ticks on round numbers', () => {
    expect(niceScale(3, 97, true, 5)).toMatchObject({ min: 0, max: 100, step: 20 });
    expect(niceScale(120, 160, false, 5).ticks).toEqual([120, 130, 140, 150, 160]);
    expect(niceScale(5, 5, false, 4)).toMatchObject({ min: 2, max: 8 });
  });
});
