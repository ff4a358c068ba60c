import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createPostgresDatabase } from '../support/databases';
import { BM25_ONLY, codesOf, graphql, type RunningGateway, type RunningWorker, startGateway, startWorker } from '../support/gateway-process';
import { type NatsServerHandle, startNats } from '../support/nats-server';
import { pluginPackage, writePlugin } from '../support/plugin-fixtures';
import { natsEnv, REMOTE_TOOLS, USERS } from '../support/remote-fixtures';
import { streamRunEvents } from '../support/run-events';
import { pollUntil as until } from '../support/service-process';

/*
 * Two gateways over one PostgreSQL, two tool workers over NATS, all real processes: a run executed on
 * gateway A (a step retried on the second worker after the first is killed during it) pauses for an
 * approval; A is restarted; the approval is given on gateway B and the run finishes there. A runEvents
 * subscriber on B sees every event of the run, in order, while A executes it. Version states set on
 * one gateway reach the other, and one approval sent to both at once is applied once.
 */
const ALICE = 'alice-operator-key-00001';
const BOB = 'bob-operator-key-0000001';
const ROOT = 'root-platform-key-000001';
const POLICY = `
roles:
  operator:
    grants:
      - tools: "**"
        actions: [discover, execute]
        maxRisk: destructive
  platform:
    platformAdmin: true
    grants:
      - tools: "**"
        actions: [discover, execute]
        maxRisk: destructive
apiKeys:
  - { key: ${ALICE}, tenant: acme, subject: alice, roles: [operator] }
  - { key: ${BOB}, tenant: acme, subject: bob, roles: [operator] }
  - { key: ${ROOT}, tenant: platform, subject: root, roles: [platform] }
`;

const RUN_FIELDS = 'id status reason steps { id status attempts output error { code message } }';
const EXECUTE = `mutation ($plan: PlanInput!) { executePlan(plan: $plan) { ${RUN_FIELDS} } }`;
const APPROVE = `mutation ($runId: ID!, $stepId: String!) { approveStep(runId: $runId, stepId: $stepId) { ${RUN_FIELDS} } }`;

interface RunResult {
  id: string;
  status: string;
  steps: { id: string; status: string; attempts: number; output: Record<string, unknown> | null; error: { code: string; message: string } | null }[];
}

const step = (id: string, tool: string, args: Record<string, unknown>, dependsOn: string[] = []) => ({ id, tool, arguments: args, dependsOn, reason: 'replica test' });

describe('gateway replicas over one PostgreSQL, tools on remote workers', () => {
  let work: string;
  let nats: NatsServerHandle;
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let gatewayEnv: Record<string, string>;
  let a: RunningGateway;
  let b: RunningGateway;
  const workers = new Map<string, RunningWorker>();
  let workerEnv: Record<string, string>;

  const watch = (gateway: RunningGateway, runId: string, key: string) => streamRunEvents(gateway.url.replace(/^http/, 'ws'), runId, key);
  const launchGateway = () => startGateway(gatewayEnv, work);
  const acceptedOf = (tool: string) =>
    [...workers.values()].flatMap((w) =>
      w
        .accepted()
        .filter((x) => x.tool.startsWith(tool))
        .map((x) => ({ worker: w, ...x })),
    );

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'toolgate-replicas-'));
    const pluginDir = join(work, 'worker-plugins');
    writePlugin(pluginDir, { folder: 'remote', packageJson: pluginPackage('@fixtures/remote', '1.0.0'), entry: REMOTE_TOOLS });
    mkdirSync(join(work, 'gateway-plugins'));
    writeFileSync(join(work, 'toolgate.config.yaml'), POLICY);
    [nats, database] = await Promise.all([startNats({ users: USERS }), createPostgresDatabase()]);
    workerEnv = { ...natsEnv(nats.url, 'worker'), TOOLGATE_PLUGIN_DIRS: pluginDir, TOOLGATE_PLUGIN_IMPORT_CACHE: 'off', TOOLGATE_WORKER_HEARTBEAT_MS: '200' };
    const [w1, w2] = await Promise.all([startWorker('w1', workerEnv), startWorker('w2', workerEnv)]);
    workers.set('w1', w1).set('w2', w2);
    gatewayEnv = {
      ...BM25_ONLY,
      ...natsEnv(nats.url, 'gateway'),
      DATABASE_URL: database.url,
      TOOLGATE_CONFIG: join(work, 'toolgate.config.yaml'),
      TOOLGATE_PLUGIN_DIRS: join(work, 'gateway-plugins'),
      TOOLGATE_RUN_HEARTBEAT_MS: '500',
    };
    // One after the other: the first applies the migrations.
    a = await launchGateway();
    b = await launchGateway();
  }, 180_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await Promise.all([...workers.values()].map((w) => w.kill('SIGKILL')));
    await nats?.stop();
    await database?.drop();
    rmSync(work, { recursive: true, force: true });
  });

  it('runs on A, retried on the second worker, paused; A restarts; approved on B, it finishes there; B streamed every event in order', async () => {
    const plan = {
      id: 'replicated',
      steps: [step('first', 'remote/nap', { ms: 5, label: 'first' }), step('long', 'remote/nap', { ms: 5_000, label: 'long' }, ['first']), step('wipe', 'remote/erase', { label: 'wiped' }, ['long'])],
    };
    const executing = graphql<{ executePlan: RunResult }>(a.url, EXECUTE, { key: ALICE, variables: { plan } });

    // B lists the run A started (from the shared database) and watches it from there.
    const listed = await until(
      'the run listed on B',
      async () => (await graphql<{ runs: { id: string }[] }>(b.url, '{ runs { id } }', { key: ALICE })).data?.runs ?? [],
      (runs) => runs.length > 0,
    );
    const runId = listed[0].id;
    const stream = watch(b, runId, BOB);

    // The worker that takes the long step is killed during it: the idempotent call is retried on the other one.
    const taken = await until(
      'a worker taking the long step',
      () => acceptedOf('remote/nap').sort((x, y) => x.time - y.time),
      (calls) => calls.length >= 2,
    );
    const victim = taken[1].worker;
    await victim.kill('SIGKILL');
    workers.delete(victim.id);

    const paused = (await executing).data?.executePlan as RunResult;
    expect(paused).toMatchObject({ id: runId, status: 'PENDING_APPROVAL' });
    expect(paused.steps).toEqual([
      expect.objectContaining({ id: 'first', status: 'SUCCEEDED', attempts: 1 }),
      expect.objectContaining({ id: 'long', status: 'SUCCEEDED', attempts: 2, output: { slept: 5_000, label: 'long' } }),
      expect.objectContaining({ id: 'wipe', status: 'PENDING_APPROVAL' }),
    ]);
    // B's subscriber saw A's events as A recorded them, before anything happened on B.
    await until(
      "B's stream reaching the approval request",
      () => stream.events.map((e) => e.type),
      (types) => types.includes('APPROVAL_REQUESTED'),
      10_000,
    );

    await a.stop();
    a = await launchGateway();
    workers.set(victim.id, await startWorker(victim.id, workerEnv));

    const approved = await graphql<{ approveStep: RunResult }>(b.url, APPROVE, { key: BOB, variables: { runId, stepId: 'wipe' } });
    expect(approved.errors).toBeUndefined();
    expect(approved.data?.approveStep).toMatchObject({
      status: 'SUCCEEDED',
      steps: [{ status: 'SUCCEEDED' }, { status: 'SUCCEEDED' }, { id: 'wipe', status: 'SUCCEEDED', output: { erased: 'wiped' } }],
    });
    expect(acceptedOf('remote/erase')).toHaveLength(1);
    // Approved once: the same approval on A now finds nothing waiting.
    expect(codesOf(await graphql(a.url, APPROVE, { key: BOB, variables: { runId, stepId: 'wipe' } }))).toEqual(['INVALID_ARGUMENTS']);

    const { events, errors } = await stream.done;
    expect(errors).toBeNull();
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('RUN_STARTED');
    expect(types.at(-1)).toBe('RUN_FINISHED');
    expect(events.at(-1)?.status).toBe('SUCCEEDED');
    expect(types.filter((t) => t === 'APPROVAL_DECIDED')).toHaveLength(1);

    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      const stored = await client.query('SELECT seq FROM run_events WHERE run_id = $1 ORDER BY seq', [runId]);
      expect(stored.rows.map((r: { seq: number }) => Number(r.seq))).toEqual(events.map((e) => e.seq));
      const approvals = await client.query('SELECT status, decided_by_subject FROM approvals WHERE run_id = $1', [runId]);
      expect(approvals.rows).toEqual([{ status: 'APPROVED', decided_by_subject: 'bob' }]);
    } finally {
      await client.end();
    }
  }, 120_000);

  it('applies one approval sent to both gateways at once exactly once', async () => {
    const paused = (await graphql<{ executePlan: RunResult }>(a.url, EXECUTE, { key: ALICE, variables: { plan: { id: 'twice', steps: [step('wipe', 'remote/erase', { label: 'once' })] } } })).data
      ?.executePlan as RunResult;
    expect(paused.status).toBe('PENDING_APPROVAL');
    const before = acceptedOf('remote/erase').length;
    const answers = await Promise.all([a, b].map((gateway) => graphql<{ approveStep: RunResult }>(gateway.url, APPROVE, { key: BOB, variables: { runId: paused.id, stepId: 'wipe' } })));
    expect(answers.map((answer) => answer.data?.approveStep?.status ?? codesOf(answer)[0]).sort()).toEqual(['INVALID_ARGUMENTS', 'SUCCEEDED']);
    expect(acceptedOf('remote/erase')).toHaveLength(before + 1);
  }, 60_000);

  it('a version state set on one gateway reaches the other', async () => {
    const SET = `mutation ($input: SetToolVersionStateInput!) { setToolVersionState(input: $input) { id activeVersion } }`;
    const set = await graphql(a.url, SET, { key: ROOT, variables: { input: { toolId: 'remote/charge', version: '1.0.0', state: 'DISABLED', scope: 'PLATFORM' } } });
    expect(set.errors).toBeUndefined();
    const seenOnB = await until(
      'remote/charge disabled on B',
      async () => (await graphql<{ tool: { versions: { state: string }[] } }>(b.url, '{ tool(id: "remote/charge@1.0.0") { versions { state } } }', { key: ROOT })).data?.tool?.versions[0]?.state,
      (state) => state === 'DISABLED',
      10_000,
    );
    expect(seenOnB).toBe('DISABLED');
    const refused = await graphql<{ executePlan: RunResult }>(b.url, EXECUTE, { key: ALICE, variables: { plan: { id: 'disabled', steps: [step('c', 'remote/charge', { label: 'no' })] } } });
    expect(codesOf(refused)).toEqual(['TOOL_NOT_FOUND']);
  });
});
