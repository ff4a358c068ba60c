import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CatalogService, UsageExampleService } from '@toolgate/registry';
import { ErrorCode } from '@toolgate/sdk';
import type { DatabaseKind } from '../support/databases';
import { echoPlugin, writePlugin } from '../support/plugin-fixtures';
import { type RegistryHarness, startRegistry } from '../support/registry.harness';

const jsonl = (lines: unknown[]) => lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n');
/** Examples of one write share its instant, so their order among themselves is not part of the contract. */
const sorted = (queries: readonly string[] | undefined) => [...(queries ?? [])].sort();
/** Small bounds, so a test can fill a scope. */
const BOUNDS = { platform: 12, perTenant: 8 };

describe.each<DatabaseKind>(['sqlite', 'postgres'])('usage examples on %s', (kind) => {
  let registry: RegistryHarness;
  let work: string;
  let usage: UsageExampleService;
  let catalog: CatalogService;
  let file = 0;
  /** Writes a JSON Lines file and returns its path. */
  const examplesFile = (lines: unknown[]) => {
    const path = join(work, `examples-${++file}.jsonl`);
    writeFileSync(path, jsonl(lines));
    return path;
  };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'toolgate-usage-'));
    // 1.1.0 ships echo/say and echo/shout.
    writePlugin(join(work, 'plugins'), echoPlugin('1.1.0'));
    registry = await startRegistry(kind, { pluginDirs: [join(work, 'plugins')], usageExamples: BOUNDS });
    usage = registry.app.get(UsageExampleService);
    catalog = registry.app.get(CatalogService);
  });

  afterAll(async () => {
    await registry?.close();
  });

  it('imports both file formats, keeps only the asked split, and tells the catalog subscribers', async () => {
    let changes = 0;
    const subscription = catalog.changes$.subscribe(() => changes++);
    const simple = examplesFile([{ query: 'repeat after me', tool: 'echo/say' }, '', { query: 'SAY IT LOUDER', tool: 'echo/shout' }]);
    await expect(usage.importFile(simple)).resolves.toEqual({ imported: 2, duplicates: 0, dropped: 0, tools: 2, bound: BOUNDS.platform });
    const evalFormat = examplesFile([
      { qid: '1', query: 'parrot my words', gold: ['echo/say'], split: 'train' },
      { qid: '2', query: 'yell and repeat', gold: ['echo/say', 'echo/shout'], split: 'train' },
      { qid: '3', query: 'held-out question', gold: ['echo/say'], split: 'test' },
    ]);
    await expect(usage.importFile(evalFormat, { split: 'train' })).resolves.toEqual({ imported: 3, duplicates: 0, dropped: 0, tools: 2, bound: BOUNDS.platform });
    subscription.unsubscribe();
    expect(changes).toBe(2);
    const examples = await usage.examplesFor(['echo/say', 'echo/shout', 'echo/nothing']);
    // Oldest write first; the test split never leaks in.
    expect([...examples.keys()].sort()).toEqual(['echo/say', 'echo/shout']);
    expect(examples.get('echo/say')?.[0]).toBe('repeat after me');
    expect(sorted(examples.get('echo/say')?.slice(1))).toEqual(['parrot my words', 'yell and repeat']);
    expect(examples.get('echo/shout')).toEqual(['SAY IT LOUDER', 'yell and repeat']);
    expect((await usage.list({ toolId: 'echo/shout' })).map((e) => e.source)).toEqual(['import', 'import']);
    await expect(usage.importFile(evalFormat, { split: 'dev' })).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENTS, message: expect.stringContaining('no usage examples of split "dev"') });
  });

  it('de-duplicates per tool, ignoring case and spacing, within a file and against what is stored', async () => {
    const path = examplesFile([
      { query: '  Repeat   AFTER me ', tool: 'echo/say' },
      { query: 'repeat after me', tool: 'echo/shout' },
      { query: 'Repeat after ME', tool: 'echo/shout' },
    ]);
    await expect(usage.importFile(path)).resolves.toEqual({ imported: 1, duplicates: 2, dropped: 0, tools: 2, bound: BOUNDS.platform });
    await expect(usage.importFile(path)).resolves.toEqual({ imported: 0, duplicates: 3, dropped: 0, tools: 2, bound: BOUNDS.platform });
    // A learned query the platform already has adds nothing; a new one is the tenant's, once.
    await expect(usage.record('echo/say', 'PARROT my words', 'acme')).resolves.toBe(false);
    await expect(usage.record('echo/say', 'echo this back', 'acme')).resolves.toBe(true);
    await expect(usage.record('echo/say', 'echo  this back', 'acme')).resolves.toBe(false);
    expect(sorted((await usage.examplesFor(['echo/say'])).get('echo/say'))).toEqual(['parrot my words', 'repeat after me', 'yell and repeat']);
    expect((await usage.examplesFor(['echo/say'], 'acme')).get('echo/say')).toEqual(['echo this back']);
  });

  it('keeps the platform within its bound by trimming the most-used tool, oldest first, the rarely used one untouched', async () => {
    const say = (await usage.examplesFor(['echo/say'])).get('echo/say') ?? [];
    const before = (await usage.examplesFor(['echo/shout'])).get('echo/shout') ?? [];
    expect([say.length, before.length]).toEqual([3, 3]);
    const queries = Array.from({ length: 15 }, (_, i) => `shout number ${i}`);
    const result = await usage.importFile(examplesFile(queries.map((query) => ({ query, tool: 'echo/shout' }))));
    // 3 + 18 is over 12: shout is cut to 9, its stored examples first, then the file's own first lines.
    expect(result).toEqual({ imported: queries.length, duplicates: 0, dropped: before.length + 6, tools: 1, bound: BOUNDS.platform });
    expect(sorted((await usage.examplesFor(['echo/shout'])).get('echo/shout'))).toEqual(sorted(queries.slice(6)));
    // One more write pushes out one example of the oldest write left.
    await usage.importFile(examplesFile([{ query: 'one more shout', tool: 'echo/shout' }]));
    const after = (await usage.examplesFor(['echo/shout'])).get('echo/shout') ?? [];
    expect(after).toHaveLength(9);
    expect(after.at(-1)).toBe('one more shout');
    expect(queries.slice(6).filter((q) => !after.includes(q))).toHaveLength(1);
    // The tool with few examples keeps every one of them.
    expect((await usage.examplesFor(['echo/say'])).get('echo/say')).toEqual(say);
  });

  it('refuses a file naming an unknown tool, storing nothing of it', async () => {
    const stored = (await usage.list()).length;
    const path = examplesFile([
      { query: 'a fine new example', tool: 'echo/say' },
      { qid: '9', query: 'who knows', gold: ['echo/say', 'nowhere/tool'], split: 'train' },
    ]);
    await expect(usage.importFile(path)).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENTS,
      message: `${path}:2: unknown tool "nowhere/tool": no such tool in the catalog`,
      details: [{ path: `${path}:2`, message: expect.stringContaining('nowhere/tool') }],
    });
    expect(await usage.list()).toHaveLength(stored);
    await expect(usage.record('nowhere/tool', 'who knows', 'acme')).rejects.toMatchObject({ code: ErrorCode.TOOL_NOT_FOUND });
  });

  it('refuses a file with a bad line, naming every bad file:line, storing nothing of it', async () => {
    const stored = (await usage.list()).length;
    const path = examplesFile([
      { query: 'another fine example', tool: 'echo/say' },
      '{"query": "unterminated"',
      { query: '', tool: 'echo/say' },
      { query: 'versioned', tool: 'echo/say@1.1.0' },
      { query: 'no label at all' },
      { query: 'x'.repeat(501), tool: 'echo/say' },
    ]);
    const error = await usage.importFile(path).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.INVALID_ARGUMENTS, message: expect.stringMatching(new RegExp(`^${path}:2: not valid JSON.*\\(and 4 more\\)$`)) });
    expect((error as { details: { path: string }[] }).details.map((d) => d.path)).toEqual([2, 3, 4, 5, 6].map((line) => `${path}:${line}`));
    expect(await usage.list()).toHaveLength(stored);
    await expect(usage.importFile(join(work, 'missing.jsonl'))).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENTS, message: expect.stringContaining('cannot read') });
    await expect(usage.record('echo/say', '   ', 'acme')).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENTS, details: [{ path: '/query' }] });
    await expect(usage.record('echo/say', 'no tenant', ' ')).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENTS, details: [{ path: '/tenant' }] });
    expect(await usage.list()).toHaveLength(stored);
  });

  it("keeps what each tenant's runs taught to that tenant: stored, bounded and de-duplicated apart", async () => {
    const platform = (await usage.examplesFor(['echo/shout'])).get('echo/shout');
    // globex teaches say once, then floods shout with one phrase and more than its whole bound of others; acme teaches the same phrase once.
    await expect(usage.record('echo/say', 'globex says hello', 'globex')).resolves.toBe(true);
    await expect(usage.record('echo/shout', 'Quarterly Zorblax Report', 'globex')).resolves.toBe(true);
    for (let i = 0; i < BOUNDS.perTenant + 3; i++) await usage.record('echo/shout', `globex shout ${i}`, 'globex');
    await expect(usage.record('echo/shout', 'quarterly   zorblax report', 'acme')).resolves.toBe(true);
    await expect(usage.record('echo/shout', 'QUARTERLY ZORBLAX REPORT', 'acme')).resolves.toBe(false);
    const globex = (await usage.examplesFor(['echo/shout'], 'globex')).get('echo/shout') ?? [];
    // The flood trims the flooded tool only: globex keeps what it taught say.
    expect(globex).toHaveLength(BOUNDS.perTenant - 1);
    expect(globex).not.toContain('Quarterly Zorblax Report');
    expect(globex.at(-1)).toBe(`globex shout ${BOUNDS.perTenant + 2}`);
    expect((await usage.examplesFor(['echo/say'], 'globex')).get('echo/say')).toEqual(['globex says hello']);
    // Neither the platform's examples nor acme's were pushed out by globex's flood.
    expect((await usage.examplesFor(['echo/shout'])).get('echo/shout')).toEqual(platform);
    expect((await usage.examplesFor(['echo/shout'], 'acme')).get('echo/shout')).toEqual(['quarterly   zorblax report']);
    expect((await usage.examplesFor(['echo/shout'], 'initech')).get('echo/shout')).toBeUndefined();
    const learned = (await usage.learnedFor(['echo/shout', 'echo/say'])).get('echo/shout');
    expect([...(learned?.keys() ?? [])].sort()).toEqual(['acme', 'globex']);
    expect(learned?.get('acme')).toEqual(['quarterly   zorblax report']);
    const listed = await usage.list({ toolId: 'echo/shout', tenant: 'acme' });
    expect(listed).toEqual([expect.objectContaining({ tenant: 'acme', source: 'execution', query: 'quarterly   zorblax report' })]);
    expect((await usage.list({ toolId: 'echo/shout' })).filter((e) => e.source === 'import').every((e) => e.tenant === null)).toBe(true);
  });
});
