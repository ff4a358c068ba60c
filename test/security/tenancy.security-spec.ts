import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'graphql-ws';
import { codesOf, graphql } from '../support/gateway-process';
import { healthLatencyMs, KEYS, startTwoTenantServer, type TwoTenantServer } from './support/two-tenants';

/**
 * Issue 10, items 3 (what is learned) and 4 (who reads run outputs), attacked over HTTP and WebSocket
 * against the built server with two tenants. globex tries to read and to steer what acme's searches
 * and plans learned; an acme analyst tries to read the outputs of an acme admin's file tools.
 */

interface Hit {
  tool: { id: string };
  explanation: { rank: number; matchedTerms: string[] };
}
interface StepData {
  id: string;
  tool: string;
  status: string;
  output: unknown;
  outputWithheld: boolean;
  error: { code: string; message: string } | null;
  reason: string | null;
  dependsOn: string[];
}
interface RunData {
  id: string;
  status: string;
  reason: string | null;
  owner: { tenant: string; subject: string };
  steps: StepData[];
}
interface PlanData {
  decision: string;
  steps: { id: string; tool: string; dependsOn: string[] }[];
}

const SEARCH = 'query($q: String!) { searchTools(input: { query: $q, k: 8 }) { tool { id } explanation { rank matchedTerms } } }';
const STEP_FIELDS = 'id tool status output outputWithheld error { code message } reason dependsOn';
const RUN_FIELDS = `id status reason owner { tenant subject } steps { ${STEP_FIELDS} }`;
const RUN_TASK = `mutation($task: TaskInput!) { runTask(task: $task) { ${RUN_FIELDS} } }`;
const EXECUTE_PLAN = `mutation($plan: PlanInput!) { executePlan(plan: $plan) { ${RUN_FIELDS} } }`;
const PLAN_TASK = 'query($task: TaskInput!) { plan(task: $task) { decision steps { id tool dependsOn } } }';

/** The phrase globex's runs teach an unrelated tool, mixed into what an acme user really asks. */
const JARGON = 'zorblax';
const ACME_QUERY = `convert 5 miles to kilometers ${JARGON} quarterly`;

describe('tenancy: learning and run outputs', () => {
  let server: TwoTenantServer;
  const sandbox = mkdtempSync(join(tmpdir(), 'toolgate-tenancy-sandbox-'));
  const call = <T>(query: string, key: string, variables: Record<string, unknown> = {}) => graphql<T>(server.url, query, { key, variables });
  const search = async (key: string, q: string): Promise<Hit[]> => {
    const response = await call<{ searchTools: Hit[] }>(SEARCH, key, { q });
    expect(response.errors).toBeUndefined();
    return response.data?.searchTools ?? [];
  };
  const plan = async (key: string, text: string): Promise<PlanData> => {
    const response = await call<{ plan: PlanData }>(PLAN_TASK, key, { task: { text } });
    expect(response.errors).toBeUndefined();
    return response.data?.plan as PlanData;
  };
  /** Retries until `ready` holds: the index re-syncs after a run in the background (no timing is asserted). */
  async function eventually<T>(probe: () => Promise<T>, ready: (value: T) => boolean, what: string): Promise<T> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const value = await probe();
      if (ready(value) || Date.now() > deadline) {
        if (!ready(value)) throw new Error(`never happened: ${what}: ${JSON.stringify(value)}`);
        return value;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  beforeAll(async () => {
    server = await startTwoTenantServer({ TOOLGATE_SANDBOX_DIR: sandbox });
  });

  afterAll(async () => {
    await server?.stop();
    rmSync(sandbox, { recursive: true, force: true });
  });

  it("never ranks or explains acme's searches with what globex's runs taught, however hard globex pushes", async () => {
    const before = await search(KEYS.acmeAnalyst, ACME_QUERY);
    expect(before[0]?.tool.id).toBe('units/convert');
    const rankOfNow = (hits: Hit[]) => hits.find((h) => h.tool.id === 'datetime/now')?.explanation.rank ?? Number.POSITIVE_INFINITY;
    const globexBefore = rankOfNow(await search(KEYS.globexAnalyst, ACME_QUERY));
    // globex's analyst forces an unrelated tool onto acme-like phrasings, in many forms, so its runs teach datetime/now the phrase.
    const phrasings = [
      ACME_QUERY,
      `${JARGON} quarterly convert miles kilometers`,
      `please ${ACME_QUERY} now`,
      `${ACME_QUERY.toUpperCase()}!`,
      `5 miles ${JARGON} to km`,
      `quarterly ${JARGON} report of 5 miles`,
    ];
    for (const text of phrasings) {
      const response = await call<{ runTask: RunData }>(RUN_TASK, KEYS.globexAnalyst, { task: { text, toolChoice: { mode: 'TOOL', tool: 'datetime/now' } } });
      expect(response.errors).toBeUndefined();
      expect(response.data?.runTask.steps.map((s) => [s.tool.split('@')[0], s.status])).toEqual([['datetime/now', 'SUCCEEDED']]);
    }
    // globex's own searches now lean where it taught them (the poisoning channel is real)...
    const poisoned = await eventually(
      () => search(KEYS.globexAnalyst, ACME_QUERY),
      (hits) => hits.some((h) => h.tool.id === 'datetime/now' && h.explanation.matchedTerms.includes(JARGON)),
      'globex learning from its own runs',
    );
    expect(rankOfNow(poisoned)).toBeLessThan(globexBefore);
    // ...and acme's answer is the one it had before, with no trace of globex's phrase.
    const after = await search(KEYS.acmeAnalyst, ACME_QUERY);
    expect(after).toEqual(before);
    expect(after.flatMap((h) => h.explanation.matchedTerms)).not.toContain(JARGON);
    const jargonOnly = await search(KEYS.acmeAnalyst, `${JARGON} quarterly`);
    expect(jargonOnly.map((h) => h.tool.id)).not.toContain('datetime/now');
    expect(await healthLatencyMs(server.url)).toBeLessThan(1_000);
  });

  it("keeps the tool graph globex's runs teach out of acme's plans", async () => {
    const task = 'convert 5 miles to kilometers and convert 100 USD to EUR';
    const baseline = await plan(KEYS.acmeAnalyst, task);
    expect(baseline.steps.length).toBeGreaterThanOrEqual(2);
    const learnedBefore = await plan(KEYS.globexAnalyst, task);
    for (let i = 0; i < 4; i++) {
      const response = await call<{ runTask: RunData }>(RUN_TASK, KEYS.globexAnalyst, { task: { text: task } });
      expect(response.data?.runTask.status).toBe('SUCCEEDED');
    }
    // globex's plans follow what its runs taught (steps linked in the observed order)...
    const learned = await plan(KEYS.globexAnalyst, task);
    expect(learned.steps).not.toEqual(learnedBefore.steps);
    expect(learned.steps.some((s) => s.dependsOn.length > 0)).toBe(true);
    // ...acme's plan for the same task is unchanged.
    expect(await plan(KEYS.acmeAnalyst, task)).toEqual(baseline);
  });

  describe("an acme analyst reading an acme admin's file work", () => {
    const SECRET = 'payroll: ops earns 1,000,000';
    let adminRun: RunData;

    beforeAll(async () => {
      const response = await call<{ executePlan: RunData }>(EXECUTE_PLAN, KEYS.acmeAdmin, {
        plan: {
          steps: [
            { id: 'write', tool: 'files/write', arguments: { path: 'hr/payroll.txt', content: SECRET, ifExists: 'overwrite' } },
            { id: 'read', tool: 'files/read', arguments: { path: 'hr/payroll.txt' }, dependsOn: ['write'] },
            { id: 'missing', tool: 'files/read', arguments: { path: 'hr/nothing-here.txt' } },
            { id: 'math', tool: 'calculator/evaluate', arguments: { expression: '6 * 7' } },
          ],
        },
      });
      adminRun = response.data?.executePlan as RunData;
      expect(adminRun.owner).toEqual({ tenant: 'acme', subject: 'ops' });
      // The owner reads everything, its own secret included.
      expect(JSON.stringify(adminRun.steps.find((s) => s.id === 'read')?.output)).toContain(SECRET);
      expect(adminRun.steps.every((s) => !s.outputWithheld)).toBe(true);
    });

    /** `listed`: from `runs`, which never loads outputs (null for every step; only `run(id)` has them). */
    const checkWithheld = (run: RunData, listed = false) => {
      expect(run.status).toBe(adminRun.status);
      for (const step of run.steps) {
        const original = adminRun.steps.find((s) => s.id === step.id) as StepData;
        expect(step.status).toBe(original.status);
        if (step.tool.startsWith('files/')) {
          expect(step).toMatchObject({ output: null, outputWithheld: true, reason: null });
          if (original.error) expect(step.error?.code).toBe(original.error.code);
          expect(step.error?.message ?? '').not.toContain('nothing-here');
        } else {
          // A tool the analyst may execute itself: its output is readable.
          expect(step).toMatchObject({ output: listed ? null : original.output, outputWithheld: false });
        }
      }
      const text = JSON.stringify(run);
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain('nothing-here');
    };

    it('finds the run in `runs` but sees status only for the steps it may not execute', async () => {
      const listed = await call<{ runs: RunData[] }>(`{ runs(filter: { limit: 50 }) { ${RUN_FIELDS} } }`, KEYS.acmeAnalyst);
      const found = listed.data?.runs.find((r) => r.id === adminRun.id);
      expect(found).toBeDefined();
      checkWithheld(found as RunData, true);
    });

    it('sees status only through `run`, by id', async () => {
      const response = await call<{ run: RunData }>(`query($id: ID!) { run(id: $id) { ${RUN_FIELDS} } }`, KEYS.acmeAnalyst, { id: adminRun.id });
      checkWithheld(response.data?.run as RunData);
      // globex does not even see that the run exists; the owner still reads its own secret.
      const other = await call<{ run: RunData | null }>(`query($id: ID!) { run(id: $id) { id } }`, KEYS.globexAdmin, { id: adminRun.id });
      expect(other.data?.run).toBeNull();
      const stranger = await call<{ runs: RunData[] }>(`{ runs(filter: { limit: 50 }) { id } }`, KEYS.globexAnalyst);
      expect(codesOf(stranger)).toEqual([]);
      expect(stranger.data?.runs.map((r) => r.id)).not.toContain(adminRun.id);
      const own = await call<{ run: RunData }>(`query($id: ID!) { run(id: $id) { ${RUN_FIELDS} } }`, KEYS.acmeAdmin, { id: adminRun.id });
      expect(JSON.stringify(own.data?.run)).toContain(SECRET);
    });

    it('sees no output in the runEvents payloads over WebSocket', async () => {
      const client = createClient({
        url: server.url.replace(/^http/, 'ws'),
        webSocketImpl: require('ws'),
        connectionParams: { authorization: `Bearer ${KEYS.acmeAnalyst}` },
        lazy: false,
        retryAttempts: 0,
      });
      const payloads: unknown[] = [];
      const errors = await new Promise<unknown>((resolve) => {
        client.subscribe<{ runEvents: { type: string; payload: unknown } }>(
          { query: 'subscription($runId: ID!) { runEvents(runId: $runId) { type payload } }', variables: { runId: adminRun.id } },
          { next: (value) => void (value.data ? payloads.push(value.data.runEvents.payload) : resolve(value.errors)), error: resolve, complete: () => resolve(null) },
        );
      }).finally(() => client.dispose());
      expect(errors).toBeNull();
      expect(payloads.length).toBeGreaterThan(4);
      const text = JSON.stringify(payloads);
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain('nothing-here');
      expect(text).toContain('"outputWithheld":true');
      // The analyst may execute the calculator: that step's output is there.
      expect(text).toContain('"result":42');
    });
  });
});
