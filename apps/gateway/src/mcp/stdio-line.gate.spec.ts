import { StdioLineGate, type StdioRefusal, topLevelId } from './stdio-line.gate';

const LIMIT = 1024;
const request = (id: number | string, extra: Record<string, unknown> = {}) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', ...extra });

/** Feeds the chunks through a gate, returns what it passed on (as lines) and what it refused. */
async function gate(chunks: Array<string | Buffer>): Promise<{ passed: string[]; refused: StdioRefusal[] }> {
  const refused: StdioRefusal[] = [];
  const subject = new StdioLineGate(LIMIT, (refusal) => refused.push(refusal));
  const out: Buffer[] = [];
  subject.on('data', (chunk: Buffer) => out.push(chunk));
  const ended = new Promise((resolve) => subject.once('end', resolve));
  for (const chunk of chunks) subject.write(chunk);
  subject.end();
  await ended;
  return {
    passed: Buffer.concat(out)
      .toString('utf8')
      .split('\n')
      .filter((line) => line !== ''),
    refused,
  };
}

describe('StdioLineGate', () => {
  it('answers a line over the limit with its id and keeps serving the lines around it', async () => {
    const huge = request(7, { params: { cursor: 'x'.repeat(5000) } });
    const { passed, refused } = await gate([`${request(1)}\n${huge}\n${request(2)}\n`]);
    expect(passed.map((line) => JSON.parse(line).id)).toEqual([1, 2]);
    expect(refused).toEqual([
      {
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32000, message: expect.stringMatching(/of \d+ bytes is over the limit of 1024 bytes \(TOOLGATE_MAX_BODY_BYTES\)/), data: { code: 'INVALID_ARGUMENTS', maxBytes: LIMIT } },
      },
    ]);
  });

  it('drops an oversized line that arrives in small chunks without holding it, and counts all of it', async () => {
    const huge = `${request('big', { params: { blob: 'y'.repeat(20_000) } })}\n`;
    const chunks = [];
    for (let i = 0; i < huge.length; i += 100) chunks.push(huge.slice(i, i + 100));
    const { passed, refused } = await gate([...chunks, `${request(3)}\n`]);
    expect(passed.map((line) => JSON.parse(line).id)).toEqual([3]);
    expect(refused).toHaveLength(1);
    expect(refused[0].id).toBe('big');
    expect(refused[0].error.message).toContain(`of ${huge.length - 1} bytes`);
  });

  it('never answers with an id taken from inside params, nor from a string that spells one', async () => {
    // A request id placed after a large params object is out of reach; the nested "id" must not stand in for it.
    const nested = `{"jsonrpc":"2.0","method":"tools/call","params":{"id":666,"name":"call_tool","arguments":{"text":"${'z'.repeat(5000)}"}},"id":1}`;
    const spelled = `{"jsonrpc":"2.0","method":"\\"id\\": 666","params":{"pad":"${'z'.repeat(5000)}"},"id":2}`;
    const { refused } = await gate([`${nested}\n${spelled}\n`]);
    expect(refused.map((r) => r.id)).toEqual([null, null]);
  });

  it('answers a line that is not JSON with a parse error, and JSON that is not JSON-RPC with an invalid request', async () => {
    const { passed, refused } = await gate(['{"jsonrpc":"2.0","id":1,"method":\n', '{"id":4,"method":"tools/list"}\n', `[${request(5)},${request(6)}]\n`, '"just a string"\n', `${request(8)}\n`]);
    expect(passed.map((line) => JSON.parse(line).id)).toEqual([8]);
    expect(refused.map((r) => [r.id, r.error.code])).toEqual([
      [null, -32700],
      [4, -32600],
      [null, -32600],
      [null, -32600],
    ]);
    expect(refused[2].error.message).toContain('batches are not supported');
  });

  it('reassembles lines split anywhere, a multi-byte character included, and takes CRLF and a last line without newline', async () => {
    const withUnicode = request(9, { params: { cursor: '換算→ok' } });
    const bytes = Buffer.from(`${withUnicode}\r\n`, 'utf8');
    const split = bytes.indexOf(Buffer.from('換', 'utf8')) + 1;
    const { passed, refused } = await gate([bytes.subarray(0, split), bytes.subarray(split), '\n\n', request(10)]);
    expect(refused).toEqual([]);
    expect(passed.map((line) => JSON.parse(line))).toEqual([JSON.parse(withUnicode), JSON.parse(request(10))]);
  });
});

describe('topLevelId', () => {
  it.each([
    ['{"jsonrpc":"2.0","id":12,"method":"x","params":{"', 12],
    ['{ "id" : "abc\\"d" , "method', 'abc"d'],
    ['{"method":"id","id":-3,', -3],
    ['{"params":{"id":1},"id":2,', 2],
    ['{"params":{"id":1,"more":"', null],
    ['{"id":{"nested":1},', null],
    ['{"id":12', null],
  ])('reads %s as %p', (head, id) => {
    expect(topLevelId(head)).toBe(id);
  });
});
