import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode } from '@toolgate/sdk';
import { bfclToJsonSchema, readBfclAnswers, readBfclSamples } from './bfcl.reader';

describe('BFCL reader', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bfcl-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("converts BFCL's types to JSON Schema, recursively, keeping descriptions, enums, defaults and required", () => {
    expect(
      bfclToJsonSchema({
        type: 'dict',
        properties: {
          point: { type: 'tuple', items: { type: 'float' }, description: 'x, y' },
          unit: { type: 'string', enum: ['m', 'ft'], default: 'm' },
          meta: { type: 'dict', properties: { n: { type: 'integer' } }, required: ['n'] },
          anything: { type: 'any' },
          flag: { type: 'boolean' },
          odd: { type: 'complex' },
        },
        required: ['point'],
      }),
    ).toEqual({
      type: 'object',
      properties: {
        point: { type: 'array', items: { type: 'number' }, description: 'x, y' },
        unit: { type: 'string', enum: ['m', 'ft'], default: 'm' },
        meta: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
        anything: {},
        flag: { type: 'boolean' },
        odd: {},
      },
      required: ['point'],
    });
  });

  it("reads samples (the last turn's user text) and answers", async () => {
    const questions = join(dir, 'q.json');
    await writeFile(
      questions,
      `${JSON.stringify({
        id: 's1',
        question: [
          [
            { role: 'system', content: 'be brief' },
            { role: 'user', content: ' Area of a circle of radius 5 ' },
          ],
        ],
        function: [{ name: 'area', description: 'Area', parameters: { type: 'dict', properties: {} } }],
      })}\n`,
    );
    const answers = join(dir, 'a.json');
    await writeFile(answers, `${JSON.stringify({ id: 's1', ground_truth: [{ area: { radius: [5, 5.0] } }] })}\n`);
    expect(await readBfclSamples(questions)).toEqual([
      { id: 's1', text: 'Area of a circle of radius 5', functions: [{ name: 'area', description: 'Area', parameters: { type: 'dict', properties: {} } }] },
    ]);
    expect([...(await readBfclAnswers(answers))]).toEqual([['s1', [{ name: 'area', arguments: { radius: [5, 5.0] } }]]]);
  });

  it.each([
    ['not JSON', '{"id":', /q.json:1: not valid JSON/],
    ['no id', JSON.stringify({ question: [], function: [] }), /"id" must be a non-empty string/],
    ['no user text', JSON.stringify({ id: 'a', question: [[{ role: 'system', content: 'x' }]], function: [] }), /no user message/],
    ['a nameless function', JSON.stringify({ id: 'a', question: [[{ role: 'user', content: 'x' }]], function: [{ parameters: {} }] }), /function 0: "name"/],
    [
      'duplicate ids',
      `${JSON.stringify({ id: 'a', question: [[{ role: 'user', content: 'x' }]], function: [] })}\n${JSON.stringify({ id: 'a', question: [[{ role: 'user', content: 'x' }]], function: [] })}`,
      /q.json:2: duplicate id "a"/,
    ],
  ])('refuses %s, naming the line', async (_case, text, message) => {
    await writeFile(join(dir, 'q.json'), text);
    await expect(readBfclSamples(join(dir, 'q.json'))).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENTS, message: expect.stringMatching(message) });
  });

  it('refuses an answer that does not list acceptable values', async () => {
    await writeFile(join(dir, 'a.json'), JSON.stringify({ id: 's1', ground_truth: [{ area: { radius: 5 } }] }));
    await expect(readBfclAnswers(join(dir, 'a.json'))).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENTS, message: expect.stringMatching(/"radius" must list its acceptable values/) });
  });
});
