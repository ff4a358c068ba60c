import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildClientSchema, getIntrospectionQuery, type IntrospectionQuery, Kind, parse, print, validate } from 'graphql';
import { datasetsDir } from '../support/datasets';
import { BM25_ONLY, graphql, REPO_ROOT, type RunningGateway, startGateway } from '../support/gateway-process';
import { AUTHOR_LOOP, README_BLOCKS as blocks, shellLines } from '../support/readme';

/**
 * The README runs as written: every GraphQL example is parsed and validated against the built
 * server's schema and executed on a fresh zero-config server (keyless, the README's first command),
 * and every shell line runs from the repository root, except the few below that start a long-lived
 * server or take minutes, each named with the reason.
 */

/** Shell lines that are not run here, and why; anything else in a bash block must exit 0. */
const NOT_RUN: [RegExp, string][] = [
  [/^npm ci && npm (start|test)$/, 'installs and starts everything (this suite is part of it)'],
  [/npm start\b/, 'starts a long-lived server (the server this suite starts is the same)'],
  [/^(\w+=\S+ )*npx toolgate (serve|worker)\b/, 'starts a long-lived server or tool worker (remote-workers.e2e-spec.ts starts both)'],
  [/^npm run fetch-model$/, 'the test command fetched the model before the tests'],
  [/\bnpx toolgate eval (plan|retrieval)\b/, 'dataset evaluations take minutes; the eval commands have their own e2e tests'],
  [/\bnpx toolgate runs (approve|reject|cancel) "…"/, 'needs a run waiting for approval; runs.e2e-spec.ts runs these commands'],
];

/** The operations of a GraphQL block (comments stay with the parser), one document each. */
function operations(body: string): string[] {
  return parse(body)
    .definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION)
    .map((d) => print(d));
}

describe('README examples', () => {
  let server: RunningGateway;
  const work = mkdtempSync(join(tmpdir(), 'toolgate-readme-'));
  const png = readFileSync(join(REPO_ROOT, 'docs', 'examples', 'receipt.png')).toString('base64');
  // The README's JSON blocks of variables (e.g. the executePlan example's), by variable name; $png is the example image.
  const documented: Record<string, unknown> = Object.assign(
    {},
    ...blocks
      .filter((b) => b.lang === 'json')
      .flatMap((b) => {
        try {
          return [JSON.parse(b.body) as Record<string, unknown>];
        } catch {
          return [];
        }
      }),
  );
  const variablesFor = (operation: string) => {
    const declared = [...(/^\w+\s*\(([^)]*)\)/.exec(operation)?.[1] ?? '').matchAll(/\$(\w+)/g)].map((m) => m[1]);
    return Object.fromEntries(declared.map((name) => [name, name === 'png' ? png : documented[name]]));
  };

  beforeAll(async () => {
    server = await startGateway({ ...BM25_ONLY, TOOLGATE_DATA_DIR: join(work, 'server') });
  });

  afterAll(async () => {
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('has examples to check', () => {
    expect(blocks.filter((b) => b.lang === 'graphql').length).toBeGreaterThanOrEqual(5);
    expect(blocks.filter((b) => b.lang === 'bash').length).toBeGreaterThanOrEqual(8);
  });

  it('parses and validates every GraphQL example against the served schema', async () => {
    const introspection = await graphql<IntrospectionQuery>(server.url, getIntrospectionQuery());
    const schema = buildClientSchema(introspection.data as IntrospectionQuery);
    const problems = blocks
      .filter((b) => b.lang === 'graphql')
      .flatMap((b) => {
        try {
          return operations(b.body).flatMap((operation) => validate(schema, parse(operation)).map((error) => `${operation.split('\n')[0]}: ${error.message}`));
        } catch (error) {
          return [`${b.body.split('\n')[0]}: ${(error as Error).message}`];
        }
      });
    expect(problems).toEqual([]);
  });

  it('runs every GraphQL query and mutation: no errors, except domain errors of the "…" placeholders (a run id to fill in)', async () => {
    const failures: string[] = [];
    let ran = 0;
    for (const block of blocks.filter((b) => b.lang === 'graphql')) {
      for (const operation of operations(block.body)) {
        if (operation.startsWith('subscription')) continue;
        ran++;
        const answer = await graphql(server.url, operation, { variables: variablesFor(operation) });
        const codes = (answer.errors ?? []).map((e) => String(e.extensions?.code));
        const placeholder = operation.includes('"…"');
        const allowed = (code: string) => placeholder && !/^GRAPHQL_|BAD_USER_INPUT|INTERNAL/.test(code);
        if (codes.some((code) => !allowed(code))) failures.push(`${operation.split('\n')[0]} → ${JSON.stringify(answer.errors)}`);
      }
    }
    expect(ran).toBeGreaterThan(10);
    expect(failures).toEqual([]);
  });

  it('runs every shell line of the README from the repository root', () => {
    const port = new URL(server.url).port;
    const env = {
      ...process.env,
      ...BM25_ONLY,
      // The CLI's own catalog (the server holds its SQLite file); `metrics` finds the server by PORT.
      TOOLGATE_DATA_DIR: join(work, 'cli'),
      PORT: port,
      LOG_LEVEL: 'warn',
      // The README's evaluation lines name sets relative to it, as it tells a newcomer to set.
      TOOLGATE_DATASETS: datasetsDir(),
    };
    // The author loop publishes to a registry: plugin-author.e2e-spec.ts runs that block against Verdaccio.
    const lines = blocks.filter((b) => b.lang === 'bash' && !b.body.startsWith(AUTHOR_LOOP)).flatMap((b) => shellLines(b.body));
    const skipped = lines.filter((line) => NOT_RUN.some(([pattern]) => pattern.test(line)));
    const run = lines.filter((line) => !skipped.includes(line));
    expect(run.length).toBeGreaterThan(12);
    // The README's scratch folder for new plugins: as on a machine that never ran it.
    rmSync('/tmp/my-plugins', { recursive: true, force: true });
    const failures: string[] = [];
    for (const line of run) {
      const command = line.replaceAll('127.0.0.1:4000', `127.0.0.1:${port}`);
      const result = spawnSync('bash', ['-o', 'pipefail', '-c', command], { cwd: REPO_ROOT, env, encoding: 'utf8', timeout: 120_000 });
      if (result.status !== 0) failures.push(`${line}\n  exit ${result.status}: ${(result.stderr || result.stdout).trim().slice(0, 600)}`);
    }
    expect(failures).toEqual([]);
  }, 600_000);
});
