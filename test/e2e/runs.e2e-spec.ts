import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import Database from 'better-sqlite3';
import { BM25_ONLY, codesOf, graphql, REPO_ROOT, type RunningGateway, runCliAsync, startGateway } from '../support/gateway-process';
import { pluginPackage, toolSource, writePlugin } from '../support/plugin-fixtures';
import { streamRunEvents } from '../support/run-events';

/** runTask, executePlan, approvals, cancellation, runs, runEvents and toolHealth over HTTP and WebSocket against the built server; `toolgate run`. */

const ALICE = 'alice-operator-key-00001';
const BOB = 'bob-operator-key-0000001';
const MALLORY = 'mallory-other-tenant-key';

const POLICY = `
roles:
  operator:
    grants:
      - tools: "**"
        actions: [discover, execute]
        maxRisk: destructive
apiKeys:
  - key: ${ALICE}
    tenant: acme
    subject: alice
    roles: [operator]
  - key: ${BOB}
    tenant: acme
    subject: bob
    roles: [operator]
  - key: ${MALLORY}
    tenant: evil
    subject: mallory
    roles: [operator]
`;

/** `vault/purge` needs a person's approval before it runs. */
const vaultPlugin = {
  folder: 'vault',
  packageJson: pluginPackage('@fixtures/vault', '1.0.0'),
  entry: `exports.tools = [{ ...${toolSource('purge', 'Purges the named text from the vault. Use it to test approvals; not for real work.')}, permissions: { scopes: [], risk: 'write', requiresApproval: true } }];`,
};

const RUN_FIELDS = 'id status reason traceId task owner { tenant subject } steps { id tool status attempts output error { code message path } reason dependsOn startedAt durationMs } finishedAt';
const RUN_TASK = `mutation($task: TaskInput!) { runTask(task: $task) { ${RUN_FIELDS} } }`;
const EXECUTE_PLAN = `mutation($plan: PlanInput!) { executePlan(plan: $plan) { ${RUN_FIELDS} } }`;
const APPROVE = `mutation($runId: ID!, $stepId: String!, $comment: String) { approveStep(runId: $runId, stepId: $stepId, comment: $comment) { ${RUN_FIELDS} } }`;
const REJECT = `mutation($runId: ID!, $stepId: String!) { rejectStep(runId: $runId, stepId: $stepId) { ${RUN_FIELDS} } }`;
const CANCEL = `mutation($runId: ID!) { cancelRun(runId: $runId) { ${RUN_FIELDS} } }`;
const RUN = `query($id: ID!) { run(id: $id) { ${RUN_FIELDS} } }`;
const RUNS = `query($filter: RunFilterInput) { runs(filter: $filter) { id status owner { tenant subject } } }`;

interface RunData {
  id: string;
  status: string;
  reason: string | null;
  traceId: string;
  task: string | null;
  owner: { tenant: string; subject: string };
  steps: {
    id: string;
    tool: string;
    status: string;
    attempts: number;
    output: Record<string, unknown> | null;
    error: { code: string; message: string; path: string | null } | null;
    reason: string | null;
  }[];
  finishedAt: string | null;
}

const purgePlan = (id: string) => ({ id, steps: [{ id: 'p1', tool: 'vault/purge', arguments: { text: 'old records' } }] });

describe('runs over HTTP and WebSocket', () => {
  let gateway: RunningGateway;
  let work: string;
  let database: string;
  let wsUrl: string;

  const call = <T = Record<string, unknown>>(query: string, key: string, variables: Record<string, unknown> = {}) => graphql<T>(gateway.url, query, { key, variables });

  const streamEvents = (runId: string, key: string | null) => streamRunEvents(wsUrl, runId, key);

  /** Audit rows of one run, read from the server's SQLite file. */
  function auditRows(runId: string) {
    const db = new Database(database, { readonly: true, fileMustExist: true });
    try {
      const count = (sql: string) => (db.prepare(sql).get(runId) as { n: number }).n;
      return {
        steps: count('SELECT COUNT(*) AS n FROM run_steps WHERE run_id = ?'),
        attempts: count('SELECT COUNT(*) AS n FROM step_attempts WHERE run_id = ?'),
        finishedEvents: count("SELECT COUNT(*) AS n FROM run_events WHERE run_id = ? AND type = 'STEP_FINISHED'"),
        seqs: (db.prepare('SELECT seq FROM run_events WHERE run_id = ? ORDER BY seq').all(runId) as { seq: number }[]).map((r) => r.seq),
        approvals: db.prepare('SELECT status, decided_by_subject AS decidedBy, comment FROM approvals WHERE run_id = ?').all(runId),
      };
    } finally {
      db.close();
    }
  }

  function usageExamples(toolId: string): { query: string; source: string }[] {
    const db = new Database(database, { readonly: true, fileMustExist: true });
    try {
      return db.prepare('SELECT query, source FROM tool_usage_examples WHERE tool_id = ?').all(toolId) as { query: string; source: string }[];
    } finally {
      db.close();
    }
  }

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'toolgate-runs-'));
    const policyFile = join(work, 'toolgate.config.yaml');
    writeFileSync(policyFile, POLICY);
    writePlugin(join(work, 'plugins'), vaultPlugin);
    database = join(work, 'data', 'toolgate.db');
    gateway = await startGateway({
      ...BM25_ONLY,
      TOOLGATE_DATA_DIR: join(work, 'data'),
      TOOLGATE_PLUGIN_DIRS: [join(REPO_ROOT, 'plugins'), join(work, 'plugins')].join(delimiter),
      TOOLGATE_CONFIG: policyFile,
      TOOLGATE_SANDBOX_DIR: join(work, 'sandbox'),
      HOST: '127.0.0.1',
    });
    wsUrl = gateway.url.replace(/^http/, 'ws');
  });

  afterAll(async () => {
    await gateway?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('runTask plans and runs "convert 5 miles to kilometers": the real output, recorded step by step, learned as a usage example', async () => {
    const response = await call<{ runTask: RunData }>(RUN_TASK, ALICE, { task: { text: 'convert 5 miles to kilometers' } });
    expect(response.errors).toBeUndefined();
    const run = response.data?.runTask as RunData;
    expect(run).toMatchObject({ status: 'SUCCEEDED', task: 'convert 5 miles to kilometers', owner: { tenant: 'acme', subject: 'alice' } });
    expect(run.traceId).toMatch(/^[0-9a-f]{32}$/);
    const convert = run.steps.find((s) => s.tool === 'units/convert@1.0.0');
    expect(convert).toMatchObject({ status: 'SUCCEEDED', attempts: 1, error: null });
    expect(convert?.output?.result).toBeCloseTo(8.04672, 5);

    await expect(call<{ run: RunData }>(RUN, ALICE, { id: run.id })).resolves.toEqual({ data: { run } });
    const rows = auditRows(run.id);
    expect(rows.steps).toBe(run.steps.length);
    expect(rows.finishedEvents).toBe(run.steps.length);
    expect(rows.attempts).toBe(run.steps.reduce((sum, s) => sum + s.attempts, 0));
    expect(rows.seqs).toEqual(rows.seqs.map((_, i) => i + 1));
    expect(usageExamples('units/convert')).toContainEqual({ query: 'convert 5 miles to kilometers', source: 'execution' });
  });

  it('runTask refuses a task that needs more, with the question, and runs nothing', async () => {
    const response = await call(RUN_TASK, ALICE, { task: { text: 'convert some miles to kilometers' } });
    expect(codesOf(response)).toEqual(['INVALID_ARGUMENTS']);
    expect(response.errors?.[0].message).toMatch(/needs more/);
  });

  it('executePlan runs a two-step plan whose second step binds the first one’s output', async () => {
    const plan = {
      steps: [
        { id: 'a', tool: 'units/convert', arguments: { value: 5, from: 'mi', to: 'km' } },
        { id: 'b', tool: 'calculator/evaluate', arguments: { expression: '2 * x', variables: { x: { $ref: 'steps.a.output/result' } } }, dependsOn: ['a'] },
      ],
    };
    const response = await call<{ executePlan: RunData }>(EXECUTE_PLAN, ALICE, { plan });
    expect(response.errors).toBeUndefined();
    const run = response.data?.executePlan as RunData;
    expect(run.status).toBe('SUCCEEDED');
    expect(run.steps.map((s) => [s.id, s.tool, s.status])).toEqual([
      ['a', 'units/convert@1.0.0', 'SUCCEEDED'],
      ['b', 'calculator/evaluate@1.1.0', 'SUCCEEDED'],
    ]);
    expect(run.steps[1].output?.result).toBeCloseTo(16.09344, 5);
    expect(auditRows(run.id).steps).toBe(2);
  });

  it('executePlan validates a supplied plan like a planned one: field-level errors, nothing recorded', async () => {
    const before = (await call<{ runs: { id: string }[] }>(RUNS, ALICE)).data?.runs.length;
    const response = await call(EXECUTE_PLAN, ALICE, {
      plan: {
        steps: [
          { id: 'a', tool: 'units/convert', arguments: { value: 'five', from: 'mi', to: 'km' } },
          { id: 'b', tool: 'nothing/here', arguments: {}, dependsOn: ['a'] },
        ],
      },
    });
    expect(response.data).toBeNull();
    const paths = (response.errors?.[0].extensions?.details ?? []).map((d) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['/steps/0/arguments/value', '/steps/1/tool']));
    expect((await call<{ runs: { id: string }[] }>(RUNS, ALICE)).data?.runs.length).toBe(before);
  });

  it('refuses arguments nested thousands of levels deep with a typed error, records nothing and keeps answering', async () => {
    const before = (await call<{ runs: { id: string }[] }>(RUNS, ALICE)).data?.runs.length;
    const deepObject = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const deepArray = `${'['.repeat(5000)}1${']'.repeat(5000)}`;
    const post = async (body: string) =>
      (await (await fetch(gateway.url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${ALICE}` }, body })).json()) as {
        errors?: { extensions?: { code?: string; details?: { path: string }[] } }[];
      };
    for (const deep of [deepObject, deepArray]) {
      const response = await post(
        `{"query":${JSON.stringify(EXECUTE_PLAN)},"variables":{"plan":{"steps":[{"id":"a","tool":"calculator/evaluate","arguments":{"expression":"1+1","variables":{"x":${deep}}}}]}}}`,
      );
      expect(response.errors?.map((e) => e.extensions?.code)).toEqual(['INVALID_ARGUMENTS']);
      expect(response.errors?.[0].extensions?.details?.[0].path).toMatch(/^\/plan\/steps\/0\/arguments\/variables\/x\//);
    }
    // The same nesting written into the query text instead of a variable.
    const literal = `mutation { executePlan(plan: {steps: [{id: "a", tool: "calculator/evaluate", arguments: {expression: "1", variables: ${'{a: '.repeat(3000)}1${'}'.repeat(3000)}}}]}) { id } }`;
    const inline = await post(JSON.stringify({ query: literal }));
    expect(inline.errors?.length).toBeGreaterThan(0);
    expect(inline.errors?.map((e) => e.extensions?.code)).not.toContain('INTERNAL');
    expect((await fetch(gateway.url.replace('/graphql', '/health'))).status).toBe(200);
    expect((await call<{ runs: { id: string }[] }>(RUNS, ALICE)).data?.runs.length).toBe(before);
  });

  it('a step that needs approval waits; another subject approves it and the run resumes, streamed in order over runEvents', async () => {
    const started = await call<{ executePlan: RunData }>(EXECUTE_PLAN, ALICE, { plan: purgePlan('purge-approved') });
    const run = started.data?.executePlan as RunData;
    expect(run.status).toBe('PENDING_APPROVAL');
    expect(run.steps[0]).toMatchObject({ id: 'p1', tool: 'vault/purge@1.0.0', status: 'PENDING_APPROVAL' });

    const stream = streamEvents(run.id, BOB);
    await stream.ready;
    // Nobody approves their own call.
    expect(codesOf(await call(APPROVE, ALICE, { runId: run.id, stepId: 'p1' }))).toEqual(['FORBIDDEN']);
    const approved = await call<{ approveStep: RunData }>(APPROVE, BOB, { runId: run.id, stepId: 'p1', comment: 'checked' });
    expect(approved.errors).toBeUndefined();
    expect(approved.data?.approveStep).toMatchObject({ status: 'SUCCEEDED', steps: [{ id: 'p1', status: 'SUCCEEDED', output: { text: 'old records' } }] });

    const { events, errors } = await stream.done;
    expect(errors).toBeNull();
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('RUN_STARTED');
    expect(types.at(-1)).toBe('RUN_FINISHED');
    expect(types.indexOf('APPROVAL_REQUESTED')).toBeLessThan(types.indexOf('APPROVAL_DECIDED'));
    expect(types.indexOf('APPROVAL_DECIDED')).toBeLessThan(types.lastIndexOf('STEP_FINISHED'));
    expect(events.at(-1)?.status).toBe('SUCCEEDED');
    expect(auditRows(run.id).approvals).toEqual([{ status: 'APPROVED', decidedBy: 'bob', comment: 'checked' }]);
  });

  it('rejectStep cancels the step; cancelRun ends a waiting run', async () => {
    const waiting = (await call<{ executePlan: RunData }>(EXECUTE_PLAN, ALICE, { plan: purgePlan('purge-rejected') })).data?.executePlan as RunData;
    const rejected = await call<{ rejectStep: RunData }>(REJECT, BOB, { runId: waiting.id, stepId: 'p1' });
    expect(rejected.errors).toBeUndefined();
    expect(rejected.data?.rejectStep.steps[0].status).toBe('CANCELLED');
    expect(rejected.data?.rejectStep.status).not.toBe('SUCCEEDED');
    expect(rejected.data?.rejectStep.finishedAt).not.toBeNull();
    expect(auditRows(waiting.id).approvals).toEqual([{ status: 'REJECTED', decidedBy: 'bob', comment: null }]);

    const other = (await call<{ executePlan: RunData }>(EXECUTE_PLAN, ALICE, { plan: purgePlan('purge-cancelled') })).data?.executePlan as RunData;
    const cancelled = await call<{ cancelRun: RunData }>(CANCEL, ALICE, { runId: other.id });
    expect(cancelled.data?.cancelRun).toMatchObject({ status: 'CANCELLED', steps: [{ status: 'CANCELLED' }] });
  });

  it('another tenant cannot see, list, steer or watch a run: it answers like a missing one', async () => {
    const run = (await call<{ executePlan: RunData }>(EXECUTE_PLAN, ALICE, { plan: purgePlan('purge-private') })).data?.executePlan as RunData;
    await expect(call(RUN, MALLORY, { id: run.id })).resolves.toEqual({ data: { run: null } });
    await expect(call(RUN, MALLORY, { id: 'no-such-run' })).resolves.toEqual({ data: { run: null } });
    expect((await call<{ runs: { id: string }[] }>(RUNS, MALLORY)).data?.runs).toEqual([]);
    const theirs = await call(APPROVE, MALLORY, { runId: run.id, stepId: 'p1' });
    const missing = await call(APPROVE, MALLORY, { runId: 'no-such-run', stepId: 'p1' });
    expect(codesOf(theirs)).toEqual(['INVALID_ARGUMENTS']);
    expect(theirs.errors?.[0].extensions?.details).toEqual(missing.errors?.[0].extensions?.details);
    expect(theirs.errors?.[0].message.replace(run.id, 'X')).toBe(missing.errors?.[0].message.replace('no-such-run', 'X'));
    expect(codesOf(await call(CANCEL, MALLORY, { runId: run.id }))).toEqual(['INVALID_ARGUMENTS']);
    const watched = await streamEvents(run.id, MALLORY).done;
    expect(watched.events).toEqual([]);
    expect(JSON.stringify(watched.errors)).toContain('INVALID_ARGUMENTS');
    // Without a key there is no connection: the server closes it at connection_init (4401 Unauthorized).
    const anonymous = await streamEvents(run.id, null).done;
    expect(anonymous.events).toEqual([]);
    expect((anonymous.errors as { code?: number }).code).toBe(4401);

    // Within the tenant, runs are listed newest first and filtered by subject and status.
    const acme = (await call<{ runs: { id: string; owner: { tenant: string } }[] }>(RUNS, BOB)).data?.runs ?? [];
    expect(acme[0].id).toBe(run.id);
    expect(acme.every((r) => r.owner.tenant === 'acme')).toBe(true);
    const waiting = (await call<{ runs: { id: string }[] }>(RUNS, BOB, { filter: { subject: 'alice', status: 'PENDING_APPROVAL' } })).data?.runs ?? [];
    expect(waiting.map((r) => r.id)).toEqual([run.id]);
    await call(CANCEL, ALICE, { runId: run.id });
  });

  it('toolHealth shows the breaker of each tool version called; /health/ready lists open breakers without failing', async () => {
    const response = await call<{ toolHealth: { toolId: string; version: string; breaker: { state: string; inFlight: number } | null }[] }>(
      '{ toolHealth { toolId version breaker { state inFlight maxConcurrency } health { healthy } } }',
      ALICE,
    );
    expect(response.errors).toBeUndefined();
    expect(response.data?.toolHealth).toContainEqual(expect.objectContaining({ toolId: 'units/convert', version: '1.0.0', breaker: expect.objectContaining({ state: 'CLOSED', inFlight: 0 }) }));
    const ready = (await (await fetch(gateway.url.replace('/graphql', '/health/ready'))).json()) as {
      status: string;
      details: { tools: { status: string; openBreakers: unknown[]; unhealthy: unknown[] } };
    };
    expect(ready.status).toBe('ok');
    expect(ready.details.tools.status).toBe('up');
    expect(ready.details.tools.openBreakers).toEqual([]);
    expect(Array.isArray(ready.details.tools.unhealthy)).toBe(true);
  });

  it('toolgate run shows each step on stderr, prints the run, and exits non-zero when it failed', async () => {
    const env = { ...BM25_ONLY, TOOLGATE_DATA_DIR: join(work, 'cli-data'), TOOLGATE_PLUGIN_DIRS: join(REPO_ROOT, 'plugins'), TOOLGATE_SANDBOX_DIR: join(work, 'cli-sandbox') };
    const ok = await runCliAsync(['run', 'convert 5 miles to kilometers', '--json'], env);
    expect(ok.status).toBe(0);
    expect(ok.stderr).toMatch(/^s1 units\/convert@1\.0\.0 RUNNING$/m);
    expect(ok.stderr).toMatch(/^s1 units\/convert@1\.0\.0 SUCCEEDED \d+ ms$/m);
    const run = JSON.parse(ok.stdout) as RunData;
    expect(run.status).toBe('SUCCEEDED');
    expect((run.steps[0].output as { result: number }).result).toBeCloseTo(8.04672, 5);

    const failed = await runCliAsync(['run', 'read the file "missing.txt"'], env);
    expect(failed.stdout).toMatch(/FAILED/);
    expect(failed.stderr).toMatch(/files\/read@1\.1\.0 FAILED/);
    expect(failed.status).toBe(1);
  });

  it('toolgate runs approve|reject|cancel act on the running gateway as the key, and refuse with the reason', async () => {
    const origin = new URL(gateway.url).origin;
    const cli = (args: string[]) => runCliAsync(['runs', ...args, '--url', origin], {});
    const paused = async () => {
      const { data } = await call<{ executePlan: RunData }>(EXECUTE_PLAN, ALICE, { plan: purgePlan('cli') });
      expect(data?.executePlan.status).toBe('PENDING_APPROVAL');
      return data?.executePlan.id as string;
    };

    const approved = await paused();
    const own = await cli(['approve', approved, 'p1', '--key', ALICE]);
    expect(own.status).not.toBe(0);
    expect(own.stderr).toMatch(/FORBIDDEN/);
    const byBob = await cli(['approve', approved, 'p1', '--key', BOB, '--comment', 'checked from the terminal', '--json']);
    expect(byBob.stderr).toBe('');
    expect(JSON.parse(byBob.stdout)).toMatchObject({ id: approved, status: 'SUCCEEDED', steps: [{ id: 'p1', status: 'SUCCEEDED' }] });
    expect(auditRows(approved).approvals).toEqual([{ status: 'APPROVED', decidedBy: 'bob', comment: 'checked from the terminal' }]);

    const rejected = await paused();
    const rejection = await cli(['reject', rejected, 'p1', '--key', BOB]);
    expect(rejection.status).toBe(0);
    expect(rejection.stdout).toMatch(new RegExp(`run ${rejected}: CANCELLED`));

    const cancelled = await paused();
    // Another tenant's key reads the run like a missing one, and changes nothing.
    const foreign = await cli(['cancel', cancelled, '--key', MALLORY]);
    expect(foreign.status).not.toBe(0);
    expect(foreign.stderr).toMatch(/INVALID_ARGUMENTS.*no run/);
    expect((await call<{ run: RunData }>(RUN, ALICE, { id: cancelled })).data?.run.status).toBe('PENDING_APPROVAL');
    const cancel = await cli(['cancel', cancelled, '--key', ALICE]);
    expect(cancel.status).toBe(0);
    expect(cancel.stdout).toMatch(/CANCELLED/);

    const keyless = await cli(['cancel', cancelled]);
    expect(keyless.stderr).toMatch(/UNAUTHENTICATED.*--key.*TOOLGATE_API_KEY/);
    const nobody = await runCliAsync(['runs', 'cancel', cancelled, '--url', 'http://127.0.0.1:9', '--key', ALICE], {});
    expect(nobody.stderr).toMatch(/UNAVAILABLE.*no gateway answers at http:\/\/127\.0\.0\.1:9\/graphql.*--url/);
  });
});
