import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { callRoute } from '@toolgate/registry';
import { connect, JSONCodec, type NatsConnection, nkeyAuthenticator, nkeys, StringCodec } from 'nats';
import { BM25_ONLY, graphql, type RunningGateway, type RunningWorker, startGateway, startWorker } from '../support/gateway-process';
import { type NatsServerHandle, startNats } from '../support/nats-server';
import { pluginPackage, writePlugin } from '../support/plugin-fixtures';
import { natsEnv, REMOTE_TOOLS, USERS, WORKER_NKEY_SEED } from '../support/remote-fixtures';
import { pollUntil as until } from '../support/service-process';

/*
 * Remote tool workers for real: a NATS server with per-role credentials, two `toolgate worker`
 * processes hosting one plugin package, and the built gateway calling them. Workers are killed with
 * SIGKILL during calls, NATS is restarted, and outsiders and malformed messages are thrown at the
 * workers the way an attacker would.
 */
const HEARTBEAT_MS = 200;

const EXECUTE = `mutation ($plan: PlanInput!) { executePlan(plan: $plan) { id status steps { id status attempts output error { code message } } } }`;

interface RunResult {
  status: string;
  steps: { id: string; status: string; attempts: number; output: Record<string, unknown> | null; error: { code: string; message: string } | null }[];
}

describe('remote tool workers over NATS', () => {
  let work: string;
  let nats: NatsServerHandle;
  let gateway: RunningGateway;
  const workers = new Map<string, RunningWorker>();
  let workerEnv: Record<string, string>;

  const execute = async (tool: string, args: Record<string, unknown>): Promise<RunResult> => {
    const response = await graphql<{ executePlan: RunResult }>(gateway.url, EXECUTE, {
      variables: { plan: { id: `p-${Math.random().toString(36).slice(2)}`, steps: [{ id: 'a', tool, arguments: args, dependsOn: [], reason: 'remote test' }] } },
    });
    if (!response.data?.executePlan) throw new Error(JSON.stringify(response.errors));
    return response.data.executePlan;
  };

  const toolHealth = async (toolId: string) => {
    const response = await graphql<{ toolHealth: { toolId: string; health: { healthy: boolean; detail: string | null } | null }[] }>(
      gateway.url,
      '{ toolHealth { toolId health { healthy detail } } }',
    );
    return response.data?.toolHealth.find((h) => h.toolId === toolId)?.health ?? null;
  };

  const launchWorker = async (id: string, extraEnv: Record<string, string> = {}) => {
    const worker = await startWorker(id, { ...workerEnv, ...extraEnv });
    workers.set(id, worker);
    return worker;
  };

  const acceptedCount = (tool: string) => [...workers.values()].reduce((n, w) => n + w.accepted().filter((a) => a.tool.startsWith(tool)).length, 0);

  /** The worker that accepts the next call of `tool` (one of theirs it has not logged yet). */
  const workerTaking = async (tool: string) => {
    const before = new Map([...workers.values()].map((w) => [w, w.accepted().filter((a) => a.tool.startsWith(tool)).length]));
    const taker = () => [...workers.values()].find((w) => w.accepted().filter((a) => a.tool.startsWith(tool)).length > (before.get(w) ?? 0));
    return (await until(`a worker accepting ${tool}`, taker, (w) => w !== undefined)) as RunningWorker;
  };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'toolgate-remote-'));
    const pluginDir = join(work, 'worker-plugins');
    writePlugin(pluginDir, { folder: 'remote', packageJson: pluginPackage('@fixtures/remote', '1.0.0'), entry: REMOTE_TOOLS });
    const empty = join(work, 'gateway-plugins');
    mkdirSync(empty);
    nats = await startNats({ users: USERS });
    workerEnv = {
      ...natsEnv(nats.url, 'worker'),
      TOOLGATE_PLUGIN_DIRS: pluginDir,
      TOOLGATE_PLUGIN_IMPORT_CACHE: 'off',
      TOOLGATE_WORKER_HEARTBEAT_MS: String(HEARTBEAT_MS),
    };
    await Promise.all([launchWorker('w1'), launchWorker('w2')]);
    gateway = await startGateway(
      {
        ...BM25_ONLY,
        TOOLGATE_DATA_DIR: join(work, 'gateway-data'),
        TOOLGATE_PLUGIN_DIRS: empty,
        ...natsEnv(nats.url, 'gateway'),
        TOOLGATE_HEALTH_INTERVAL_MS: '1000',
      },
      work,
    );
  }, 120_000);

  afterAll(async () => {
    await gateway?.stop();
    await Promise.all([...workers.values()].map((w) => w.kill('SIGKILL')));
    await nats?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('offers the tools workers announce as remote versions and runs their calls on a worker', async () => {
    const tools = await graphql<{ tools: { id: string; execution: string; activeVersion: string }[] }>(gateway.url, '{ tools { id execution activeVersion } }');
    expect(tools.data?.tools).toEqual(
      expect.arrayContaining([
        { id: 'remote/nap', execution: 'remote', activeVersion: '1.0.0' },
        { id: 'remote/charge', execution: 'remote', activeVersion: '1.0.0' },
      ]),
    );
    const run = await execute('remote/nap', { ms: 5, label: 'first' });
    expect(run).toMatchObject({ status: 'SUCCEEDED', steps: [{ status: 'SUCCEEDED', attempts: 1, output: { slept: 5, label: 'first' } }] });
    expect(acceptedCount('remote/nap@1.0.0')).toBe(1);
  });

  it('retries an idempotent call on the other worker when its worker is killed during it', async () => {
    const taking = workerTaking('remote/nap');
    const running = execute('remote/nap', { ms: 6_000, label: 'survivor' });
    const victim = await taking;
    await victim.kill('SIGKILL');
    const run = await running;
    expect(run).toMatchObject({ status: 'SUCCEEDED', steps: [{ status: 'SUCCEEDED', attempts: 2, output: { slept: 6_000, label: 'survivor' } }] });
    const other = [...workers.values()].find((w) => w !== victim) as RunningWorker;
    expect(other.accepted().filter((a) => a.tool === 'remote/nap@1.0.0' && a.attempt === 2)).toHaveLength(1);
    workers.delete(victim.id);
    await launchWorker(victim.id);
  }, 60_000);

  it('fails a non-idempotent call once, UNAVAILABLE, when its worker dies during it: never run twice', async () => {
    const before = acceptedCount('remote/charge');
    const taking = workerTaking('remote/charge');
    const running = execute('remote/charge', { ms: 6_000, label: 'once' });
    const victim = await taking;
    await victim.kill('SIGKILL');
    const run = await running;
    expect(run).toMatchObject({ status: 'FAILED', steps: [{ status: 'FAILED', attempts: 1, error: { code: 'UNAVAILABLE' } }] });
    expect(run.steps[0].error?.message).toContain(`worker ${victim.id} stopped answering`);
    expect(acceptedCount('remote/charge')).toBe(before + 1);
    workers.delete(victim.id);
    await launchWorker(victim.id);
  }, 60_000);

  it('reports a tool no live worker hosts as unhealthy and its calls UNAVAILABLE, and recovers when a worker is back', async () => {
    await Promise.all([...workers.values()].map((w) => w.kill('SIGKILL')));
    workers.clear();
    const health = await until(
      'remote/nap unhealthy',
      () => toolHealth('remote/nap'),
      (h) => h?.healthy === false,
    );
    expect(health?.detail).toContain('no live worker');
    const started = Date.now();
    const run = await execute('remote/nap', { ms: 1 });
    expect(run.steps[0]).toMatchObject({ status: 'FAILED', error: { code: 'UNAVAILABLE' } });
    // Nothing ran anywhere, so nothing waited for a deadline.
    expect(Date.now() - started).toBeLessThan(10_000);
    await Promise.all([launchWorker('w1'), launchWorker('w2')]);
    await until(
      'remote/nap healthy again',
      () => toolHealth('remote/nap'),
      (h) => h?.healthy === true,
    );
    expect(await execute('remote/nap', { ms: 1 })).toMatchObject({ status: 'SUCCEEDED' });
  }, 90_000);

  it('comes back after a NATS restart: workers re-announce and calls run again', async () => {
    await nats.restart();
    const run = await until(
      'a call after the NATS restart',
      () => execute('remote/nap', { ms: 1, label: 'after restart' }),
      (r) => r.status === 'SUCCEEDED',
      30_000,
    );
    expect(run.steps[0].output).toEqual({ slept: 1, label: 'after restart' });
  }, 60_000);

  /** A worker of its own hosting REMOTE_TOOLS as `package`, once the gateway lists `<namespace>/nap`. */
  const hostPackage = async (workerId: string, pkg: string, entry: string, extraEnv: Record<string, string> = {}) => {
    const dir = join(work, `plugins-${workerId}`);
    writePlugin(dir, { folder: workerId, packageJson: pluginPackage(pkg, '1.0.0'), entry });
    return launchWorker(workerId, { TOOLGATE_PLUGIN_DIRS: dir, ...extraEnv });
  };
  /** A tool's version as the catalog holds it, also when no version is active (held, disabled). */
  const version = async (toolId: string) => {
    const [namespace] = toolId.split('/');
    const response = await graphql<{ tools: { id: string; versions: { version: string; state: string; descriptorHash: string; pendingDescriptorHash: string | null }[] }[] }>(
      gateway.url,
      `query ($namespace: String!) { tools(filter: { namespace: $namespace, includeInactive: true }) { id versions { version state descriptorHash pendingDescriptorHash } } }`,
      { variables: { namespace } },
    );
    return response.data?.tools.find((tool) => tool.id === toolId)?.versions[0] ?? null;
  };

  it("refuses calls past a worker's capacity OVERLOADED before running them: retried, then failed, each with one outcome", async () => {
    const tight = await hostPackage('tight', '@fixtures/tight', REMOTE_TOOLS, { TOOLGATE_WORKER_CAPACITY: '2' });
    await until(
      'tight/charge listed',
      () => version('tight/charge'),
      (v) => v?.state === 'ACTIVE',
      30_000,
    );
    // Not idempotent, so only a refusal that proves the call never started may be repeated.
    const runs = await Promise.all(Array.from({ length: 6 }, (_, i) => execute('tight/charge', { ms: 4_000, label: `flood ${i}` })));
    const outcomes = runs.map((r) => `${r.steps[0].status}:${r.steps[0].error?.code ?? ''}`).sort();
    expect(outcomes).toEqual(['FAILED:OVERLOADED', 'FAILED:OVERLOADED', 'FAILED:OVERLOADED', 'FAILED:OVERLOADED', 'SUCCEEDED:', 'SUCCEEDED:']);
    for (const run of runs.filter((r) => r.status === 'FAILED')) {
      expect(run.steps[0]).toMatchObject({ attempts: 3, error: { message: expect.stringContaining('its capacity') } });
    }
    // Exactly the two calls that ran were accepted: no refused call ran, none ran twice.
    expect(tight.accepted().filter((a) => a.tool === 'tight/charge@1.0.0')).toHaveLength(2);
    await tight.kill('SIGKILL');
    workers.delete('tight');
  }, 60_000);

  it('holds a version whose descriptor drifted on its workers until the new hash is approved; a drifted worker beside a faithful one gets none of its calls', async () => {
    const faithful = await hostPackage('faithful', '@fixtures/drifty', REMOTE_TOOLS);
    const pinned = await until(
      'drifty/nap listed',
      () => version('drifty/nap'),
      (v) => v?.state === 'ACTIVE',
      30_000,
    );
    const drifted = REMOTE_TOOLS.replace("'Remote fixture '", "'Remote fixture, now also mailing its arguments to a third party, '");
    const rogue = await hostPackage('rogue', '@fixtures/drifty', drifted);
    await until(
      'the gateway to refuse the drifted announcement',
      () => gateway.logs(),
      (logs) => /"worker":"rogue".*descriptors differ/.test(logs),
      10_000,
    );
    for (let i = 0; i < 4; i++) expect(await execute('drifty/nap', { ms: 1, label: `pinned ${i}` })).toMatchObject({ status: 'SUCCEEDED' });
    expect(rogue.accepted()).toEqual([]);
    expect(faithful.accepted().filter((a) => a.tool === 'drifty/nap@1.0.0')).toHaveLength(4);

    // The faithful worker goes: the rogue's descriptors reach the catalog as drift, held, never called.
    await faithful.kill('SIGKILL');
    workers.delete('faithful');
    const held = await until(
      'the drifted version held',
      () => version('drifty/nap'),
      (v) => v?.pendingDescriptorHash != null,
      15_000,
    );
    expect(held).toMatchObject({ state: 'DISABLED', descriptorHash: pinned?.descriptorHash });
    expect(held?.pendingDescriptorHash).not.toBe(pinned?.descriptorHash);
    const refused = await graphql<{ executePlan: RunResult }>(gateway.url, EXECUTE, {
      variables: { plan: { id: 'p-held', steps: [{ id: 'a', tool: 'drifty/nap', arguments: { ms: 1 }, dependsOn: [], reason: 'held' }] } },
    });
    expect(refused.data?.executePlan?.status ?? refused.errors?.[0]?.extensions?.code).not.toBe('SUCCEEDED');
    expect(rogue.accepted()).toEqual([]);

    const approved = await graphql(gateway.url, `mutation ($h: String!) { approveToolVersion(input: { toolId: "drifty/nap", version: "1.0.0", descriptorHash: $h }) { id } }`, {
      variables: { h: held?.pendingDescriptorHash },
    });
    expect(approved.errors).toBeUndefined();
    // Right after the approval: the version's health is checked again on the change, not at the next tick.
    expect(await execute('drifty/nap', { ms: 1, label: 'approved' })).toMatchObject({ status: 'SUCCEEDED', steps: [{ output: { label: 'approved' } }] });
    expect(rogue.accepted().filter((a) => a.tool === 'drifty/nap@1.0.0')).toHaveLength(1);
    await rogue.kill('SIGKILL');
    workers.delete('rogue');
  }, 90_000);

  it('serves through a worker that authenticates with an nkey seed instead of a password', async () => {
    const { TOOLGATE_NATS_USER: _user, TOOLGATE_NATS_PASSWORD: _password, ...noPassword } = workerEnv;
    const dir = join(work, 'plugins-keyed');
    writePlugin(dir, { folder: 'keyed', packageJson: pluginPackage('@fixtures/keyed', '1.0.0'), entry: REMOTE_TOOLS });
    const keyed = await startWorker('keyed', { ...noPassword, TOOLGATE_PLUGIN_DIRS: dir, TOOLGATE_NATS_NKEY_SEED: WORKER_NKEY_SEED });
    workers.set('keyed', keyed);
    await until(
      'keyed/nap listed',
      () => version('keyed/nap'),
      (v) => v?.state === 'ACTIVE',
      30_000,
    );
    expect(await execute('keyed/nap', { ms: 1, label: 'signed' })).toMatchObject({ status: 'SUCCEEDED', steps: [{ output: { label: 'signed' } }] });
    expect(keyed.accepted().filter((a) => a.tool === 'keyed/nap@1.0.0')).toHaveLength(1);
    expect(keyed.logs()).not.toContain(WORKER_NKEY_SEED);
    await keyed.kill('SIGKILL');
    workers.delete('keyed');
  }, 60_000);

  describe('as an attacker on the NATS network', () => {
    let hash: string;
    let subject: string;
    const raw: NatsConnection[] = [];
    const json = JSONCodec();
    const as = async (user: string, password: string) => {
      const connection = await connect({ servers: nats.url, user, pass: password, reconnect: false });
      raw.push(connection);
      return connection;
    };

    beforeAll(async () => {
      const response = await graphql<{ tool: { versions: { version: string; descriptorHash: string }[] } }>(gateway.url, '{ tool(id: "remote/nap") { versions { version descriptorHash } } }');
      hash = response.data?.tool.versions[0].descriptorHash as string;
      expect(hash).toMatch(/^[0-9a-f]{64}$/);
      subject = `toolgate.call.${callRoute('remote/nap', '1.0.0', hash)}`;
    });

    afterAll(async () => {
      await Promise.all(raw.map((c) => c.close().catch(() => undefined)));
    });

    const call = (overrides: Record<string, unknown> = {}) => ({
      callId: `attack-${Math.random().toString(36).slice(2)}`,
      toolId: 'remote/nap',
      version: '1.0.0',
      hash,
      arguments: { ms: 1 },
      principal: { tenant: 'acme', subject: 'mallory' },
      idempotencyKey: 'k',
      runId: 'r',
      stepId: 's',
      attempt: 1,
      deadlineAt: Date.now() + 10_000,
      ...overrides,
    });

    it('cannot connect without the credentials of a part of the deployment', async () => {
      await expect(connect({ servers: nats.url, reconnect: false })).rejects.toThrow(/authorization/i);
      // A key pair of its own: the server knows only the deployment's public keys.
      const forged = nkeyAuthenticator(nkeys.createUser().getSeed());
      await expect(connect({ servers: nats.url, authenticator: forged, reconnect: false })).rejects.toThrow(/authorization/i);
      await expect(connect({ servers: nats.url, user: 'worker', pass: 'guessed', reconnect: false })).rejects.toThrow(/authorization/i);
    });

    it("cannot call a worker with another deployment's or a worker's credentials", async () => {
      const before = acceptedCount('remote/nap');
      for (const [user, password] of [
        ['outsider', 'outsider-secret'],
        ['worker', 'worker-secret'],
      ]) {
        const connection = await as(user, password);
        const denied = connection.request(subject, json.encode({ pattern: subject, id: 'x', data: call() }), { timeout: 1_000 });
        await expect(denied).rejects.toThrow(/permission|timeout|503|no responders/i);
      }
      await sleep(300);
      expect(acceptedCount('remote/nap')).toBe(before);
    });

    it('gets a typed refusal for a malformed call, and the workers keep serving', async () => {
      const gatewayUser = await as('gateway', 'gateway-secret');
      const ask = async (payload: Uint8Array) => json.decode((await gatewayUser.request(subject, payload, { timeout: 5_000 })).data) as Record<string, unknown>;
      const packet = (data: unknown) => json.encode({ pattern: subject, id: 'attack', data });
      const before = acceptedCount('remote/nap');

      expect(await ask(StringCodec().encode('{not json'))).toMatchObject({ err: expect.stringContaining('not a valid packet') });
      expect(await ask(packet('a string'))).toMatchObject({ response: { ok: false, error: { code: 'INVALID_ARGUMENTS', message: expect.stringContaining('not a valid call') } } });
      expect(await ask(packet(call({ principal: { tenant: 'acme' } })))).toMatchObject({ response: { ok: false, error: { code: 'INVALID_ARGUMENTS' } } });
      expect(await ask(packet(call({ toolId: 'remote/charge' })))).toMatchObject({ response: { ok: false, error: { code: 'TOOL_NOT_FOUND' } } });
      expect(await ask(packet(call({ arguments: { ms: -5, extra: true } })))).toMatchObject({
        response: { ok: false, error: { code: 'INVALID_ARGUMENTS', message: expect.stringContaining('/arguments') } },
      });
      expect(await ask(packet(call({ deadlineAt: Date.now() - 1 })))).toMatchObject({ response: { ok: false, error: { code: 'TIMEOUT' } } });
      expect(acceptedCount('remote/nap')).toBe(before);

      expect(await execute('remote/nap', { ms: 1, label: 'still here' })).toMatchObject({ status: 'SUCCEEDED' });
      for (const worker of workers.values()) expect(worker.logs()).not.toMatch(/unhandled|uncaught/i);
    });
  });
});
