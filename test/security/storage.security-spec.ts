import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codesOf, graphql } from '../support/gateway-process';
import { healthLatencyMs, KEYS, startTwoTenantServer, type TwoTenantServer } from './support/two-tenants';

/*
 * Attack: a read-only analyst fills the audit with big outputs. table/parse-csv repeats every column
 * name in every row, so a CSV of long names over rows of empty cells answers with ~40 times its size;
 * twenty such steps in one small plan would have stored every output three times over (row, step event,
 * run event), and `runs { id }` would have read them all back. The caps below are the server's (small,
 * so the attack stays quick); the database may grow by what they allow and no more.
 */
const STEP_CAP = 16 * 1024;
const RUN_CAP = 64 * 1024;
/** Everything a run stores besides outputs (rows, events with their arguments, attempts, page slack), generously. */
const RUN_OVERHEAD = 96 * 1024;

const EXECUTE = `mutation ($plan: PlanInput!) { executePlan(plan: $plan) { id status steps { id status output error { code message } } } }`;

/** `cols` long column names over `rows` rows whose cells are empty but the first. */
const wideCsv = (cols: number, rows: number, nameLength = 40) =>
  `${Array.from({ length: cols }, (_, c) => `column_${c}_`.padEnd(nameLength, 'x')).join(',')}\n${Array.from({ length: rows }, (_, r) => `${r}${','.repeat(cols - 1)}`).join('\n')}`;

const csvSteps = (n: number, csv: (i: number) => string) =>
  Array.from({ length: n }, (_, i) => ({ id: `t${i}`, tool: 'table/parse-csv', arguments: { csv: csv(i) }, dependsOn: [], reason: 'fill the audit' }));

/** The database file once the server has stopped (its write-ahead log checkpointed into it and removed). */
const databaseBytes = (work: string) => {
  expect(existsSync(join(work, 'data', 'toolgate.db-wal'))).toBe(false);
  return statSync(join(work, 'data', 'toolgate.db')).size;
};

interface Step {
  id: string;
  status: string;
  output: unknown;
}

describe('storage stays bounded (issue 10, item 7)', () => {
  const work = mkdtempSync(join(tmpdir(), 'toolgate-storage-'));
  const start = () => startTwoTenantServer({ TOOLGATE_RUN_MAX_STEP_OUTPUT_BYTES: String(STEP_CAP), TOOLGATE_RUN_MAX_OUTPUT_BYTES: String(RUN_CAP), TOOLGATE_EXEC_MAX_PARALLEL: '2' }, { work });
  let server: TwoTenantServer;

  beforeAll(async () => {
    server = await start();
  });

  afterAll(async () => {
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('big outputs grow the database by no more than the caps allow, and are stored as truncation markers', async () => {
    await server.stop();
    const before = databaseBytes(work);
    server = await start();
    // Three forms at once: every step too big for the step cap, medium ones that add up past the run
    // cap, and a mix with semicolons and quoted names.
    const plans = [
      csvSteps(20, (i) => wideCsv(20, 30 + i)),
      csvSteps(20, (i) => wideCsv(20, 8 + (i % 3))),
      csvSteps(20, (i) => (i % 2 ? wideCsv(24, 40).replaceAll(',', ';') : `"a b","c d"\n${'1,\n'.repeat(200 + i)}`)),
    ];
    const latencies: number[] = [];
    let attacking = true;
    const probe = (async () => {
      while (attacking) {
        latencies.push(await healthLatencyMs(server.url));
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    const answers = await Promise.all(
      plans.map((steps, i) => graphql<{ executePlan: { id: string; status: string; steps: Step[] } }>(server.url, EXECUTE, { key: KEYS.acmeAnalyst, variables: { plan: { id: `fill-${i}`, steps } } })),
    );
    attacking = false;
    await probe;

    expect(Math.max(...latencies)).toBeLessThan(1000);
    await server.stop();
    const grown = databaseBytes(work) - before;
    server = await start();
    console.log(`storage attack: database grew by ${grown} bytes for ${plans.length} runs of 20 big outputs (bound ${plans.length * (RUN_CAP + RUN_OVERHEAD)})`);
    expect(grown).toBeLessThanOrEqual(plans.length * (RUN_CAP + RUN_OVERHEAD));

    for (const answer of answers) expect(codesOf(answer)).toEqual([]);
    const runs = answers.map((a) => a.data?.executePlan);
    expect(runs.map((r) => r?.status)).toEqual(['SUCCEEDED', 'SUCCEEDED', 'SUCCEEDED']);
    // What was returned is what was stored: within each cap, or a marker with the size and never the value.
    for (const run of runs) {
      let kept = 0;
      for (const step of run?.steps ?? []) {
        const json = JSON.stringify(step.output);
        if ((step.output as { $truncated?: boolean }).$truncated) {
          expect(step.output).toEqual({ $truncated: true, bytes: expect.any(Number), limit: expect.any(Number), scope: expect.stringMatching(/^(step|run)$/) });
          expect((step.output as { bytes: number }).bytes).toBeGreaterThan((step.output as { limit: number }).limit);
        } else {
          expect(Buffer.byteLength(json)).toBeLessThanOrEqual(STEP_CAP);
          kept += Buffer.byteLength(json);
        }
      }
      expect(kept).toBeLessThanOrEqual(RUN_CAP);
    }
    const markers = runs.flatMap((r) => r?.steps ?? []).filter((s) => (s.output as { $truncated?: boolean }).$truncated);
    expect(new Set(markers.map((s) => (s.output as { scope: string }).scope))).toEqual(new Set(['step', 'run']));

    // The same outputs when read back later.
    const stored = await graphql<{ run: { steps: Step[] } }>(server.url, `query ($id: ID!) { run(id: $id) { steps { id output } } }`, { key: KEYS.acmeAnalyst, variables: { id: runs[0]?.id } });
    expect(stored.data?.run.steps.map((s) => s.output)).toEqual(runs[0]?.steps.map((s) => s.output));
  });

  it('listing runs reads no outputs: `runs` answers with ids and statuses, outputs only through run(id)', async () => {
    const listed = await graphql<{ runs: { id: string; status: string; steps: Step[] }[] }>(server.url, `{ runs(filter: { limit: 20 }) { id status steps { id status output } } }`, {
      key: KEYS.acmeAnalyst,
    });
    expect(codesOf(listed)).toEqual([]);
    expect(listed.data?.runs.map((r) => r.status)).toEqual(['SUCCEEDED', 'SUCCEEDED', 'SUCCEEDED']);
    expect(listed.data?.runs.flatMap((r) => r.steps).every((s) => s.output === null && s.status === 'SUCCEEDED')).toBe(true);
    // The other tenant sees none of it.
    const other = await graphql<{ runs: { id: string }[] }>(server.url, `{ runs { id } }`, { key: KEYS.globexAnalyst });
    expect(other.data?.runs).toEqual([]);
    expect(await healthLatencyMs(server.url)).toBeLessThan(1000);
  });
});
