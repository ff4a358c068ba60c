import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KEYS, startTwoTenantServer, type TwoTenantServer } from '../security/support/two-tenants';
import { graphql, REPO_ROOT, runCli } from '../support/gateway-process';
import { type RunningPrometheus, startPrometheus } from '../support/prometheus';
import { eventually } from '../support/service-process';

const ALERTS = join(REPO_ROOT, 'deploy', 'prometheus', 'alerts.yml');
const ALERT_TESTS = join(REPO_ROOT, 'deploy', 'prometheus', 'alerts.test.yml');
const DASHBOARD = join(REPO_ROOT, 'deploy', 'grafana', 'toolgate-dashboard.json');

const RUN_CONVERSION = 'mutation { runTask(task: { text: "convert 10 miles to km" }) { status steps { tool status } } }';

/** The metric families an exposition declares (`# TYPE name kind`). */
function familiesOf(exposition: string): Map<string, string> {
  return new Map([...exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1], m[2]]));
}

/** Metric names expressions read: ours, Node's and the process's; label names (in matchers and `by`/`on` lists) are not. */
function metricNamesIn(text: string): string[] {
  const withoutLabels = text
    .replace(/\b(by|on|without|ignoring)\s*\([^)]*\)/g, ' ')
    .replace(/\b[a-z_]+\s*(=~|!~|!=|=)\s*"/g, '"')
    .replace(/\$labels\.[a-z_]+/g, '');
  return [...new Set([...withoutLabels.matchAll(/\b((?:toolgate|gen_ai|process|nodejs)_[a-z0-9_]+)\b/g)].map((m) => m[1]))];
}

function familyOf(name: string, families: Map<string, string>): string | undefined {
  if (families.has(name)) return name;
  const base = name.replace(/_(bucket|sum|count)$/, '');
  return families.get(base) === 'histogram' ? base : undefined;
}

describe('Prometheus: the alert rules, /metrics, and a real Prometheus scraping the gateway', () => {
  let server: TwoTenantServer;
  let prometheus: RunningPrometheus | undefined;
  const work = mkdtempSync(join(tmpdir(), 'toolgate-prometheus-'));

  beforeAll(async () => {
    server = await startTwoTenantServer();
    // Work of two tenants: runs that call a tool, and searches.
    for (const key of [KEYS.acmeAnalyst, KEYS.acmeAnalyst, KEYS.globexAnalyst]) {
      const run = await graphql<{ runTask: { status: string } }>(server.url, RUN_CONVERSION, { key });
      expect(run.errors).toBeUndefined();
      expect(run.data?.runTask.status).toBe('SUCCEEDED');
    }
    const search = await graphql(server.url, '{ searchTools(input: { query: "what time is it in Tokyo" }) { tool { id } } }', { key: KEYS.globexAnalyst });
    expect(search.errors).toBeUndefined();
  });

  afterAll(async () => {
    await prometheus?.stop();
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  const metricsUrl = () => server.url.replace(/\/graphql$/, '/metrics');

  it('promtool accepts the alert rules, and their unit tests pass (each alert fires on its case and stays quiet on the others)', () => {
    const check = spawnSync('promtool', ['check', 'rules', ALERTS], { encoding: 'utf8' });
    expect(check.error).toBeUndefined();
    expect(`${check.stdout}${check.stderr}`).toMatch(/SUCCESS: \d+ rules found/);
    expect(check.status).toBe(0);
    const tests = spawnSync('promtool', ['test', 'rules', ALERT_TESTS], { encoding: 'utf8' });
    expect(`${tests.stdout}${tests.stderr}`).toContain('SUCCESS');
    expect(tests.status).toBe(0);
  });

  it('serves the Prometheus text format to a platform admin, with the calls, runs and searches just made', async () => {
    const response = await fetch(metricsUrl(), { headers: { authorization: `Bearer ${KEYS.platformAdmin}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4; charset=utf-8$/);
    const text = await response.text();
    expect(text).toMatch(/^toolgate_tool_calls_total\{tool="units\/convert",version="[^"]+",tenant="acme",outcome="succeeded",error_type=""\} 2$/m);
    expect(text).toMatch(/^toolgate_tool_calls_total\{tool="units\/convert",version="[^"]+",tenant="globex",outcome="succeeded",error_type=""\} 1$/m);
    expect(text).toMatch(/^toolgate_runs_total\{status="SUCCEEDED",tenant="acme"\} 2$/m);
    expect(text).toMatch(/^toolgate_tool_attempts_total\{tool="units\/convert",version="[^"]+",result="succeeded"\} 3$/m);
    expect(text).toMatch(/^toolgate_search_stage_duration_seconds_count\{stage="lexical",driver="embedded"\} [1-9]\d*$/m);
    expect(text).toMatch(/^toolgate_index_documents\{driver="embedded"\} [1-9]\d*$/m);
    expect(text).toMatch(/^toolgate_index_synced 1$/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d+$/m);
  });

  it('declares every metric the alert rules and the Grafana dashboard read (a renamed metric breaks this, not a dashboard in production)', async () => {
    const text = await (await fetch(metricsUrl(), { headers: { authorization: `Bearer ${KEYS.platformAdmin}` } })).text();
    const families = familiesOf(text);
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: { targets?: { expr: string }[] }[] };
    const expressions = [readFileSync(ALERTS, 'utf8'), ...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr))];
    const read = metricNamesIn(expressions.join('\n'));
    expect(read.length).toBeGreaterThan(15);
    expect(read.filter((name) => !familyOf(name, families))).toEqual([]);
  });

  it('toolgate metrics prints those counters per tool version for a platform admin, and names the key it needs otherwise', () => {
    const base = server.url.replace(/\/graphql$/, '');
    const table = runCli(['metrics', '--url', base], { TOOLGATE_API_KEY: KEYS.platformAdmin });
    expect(table.stderr).toBe('');
    expect(table.status).toBe(0);
    // The three runs' calls of units/convert, none failed, its breaker closed.
    expect(table.stdout).toMatch(/│ units\/convert@\S+ +│ 3 +│ 0 +│ 0\.0 % +│ 0 +│ 0 +│ 0 +│ [≤>][\d.]+ m?s +│ CLOSED +│/);
    expect(table.stdout).toContain('runs: 3 SUCCEEDED; approvals pending: 0');
    const json = JSON.parse(runCli(['metrics', '--url', base, '--key', KEYS.platformAdmin, '--json'], {}).stdout) as { tools: { tool: string; calls: number }[] };
    expect(json.tools.find((t) => t.tool.startsWith('units/convert@'))?.calls).toBe(3);

    const tenant = runCli(['metrics', '--url', base, '--key', KEYS.acmeAdmin], {});
    expect(tenant.status).toBe(1);
    expect(tenant.stderr).toContain('FORBIDDEN: ');
    expect(tenant.stderr).toContain("metrics need a platform admin's API key, from --key or $TOOLGATE_API_KEY");
    expect(tenant.stdout).toBe('');
    const nobody = runCli(['metrics', '--url', 'http://127.0.0.1:1'], {});
    expect(nobody.status).toBe(1);
    expect(nobody.stderr).toContain('no gateway answers at http://127.0.0.1:1/metrics: start one with `toolgate serve`, or pass --url / $TOOLGATE_URL');
  });

  it('is scraped by a real Prometheus with a platform admin key, which evaluates the rules; a tenant key is refused', async () => {
    const target = new URL(server.url).host;
    prometheus = await startPrometheus(
      work,
      [
        { job: 'toolgate', target, key: KEYS.platformAdmin },
        { job: 'toolgate-tenant-key', target, key: KEYS.acmeAdmin },
      ],
      [ALERTS],
    );
    const calls = await eventually('the tool calls in Prometheus', async () => {
      const result = await prometheus?.query('sum by (tenant) (toolgate_tool_calls_total{job="toolgate",tool="units/convert"})');
      return result && result.length === 2 ? result : undefined;
    });
    expect(Object.fromEntries(calls.map((r) => [r.metric.tenant, r.value]))).toEqual({ acme: 2, globex: 1 });

    // A run made now shows up in the next scrapes.
    await graphql(server.url, RUN_CONVERSION, { key: KEYS.globexAnalyst });
    await eventually('the new run', async () => {
      const [runs] = (await prometheus?.query('toolgate_runs_total{job="toolgate",status="SUCCEEDED",tenant="globex"}')) ?? [];
      return runs?.value === 2 ? runs : undefined;
    });

    const targets = await prometheus.api<{ activeTargets: { labels: { job: string }; health: string; lastError: string }[] }>('/api/v1/targets');
    const byJob = Object.fromEntries(targets.activeTargets.map((t) => [t.labels.job, t]));
    expect(byJob.toolgate.health).toBe('up');
    await eventually('the tenant-key target to be down', async () => {
      const again = await prometheus?.api<{ activeTargets: { labels: { job: string }; health: string; lastError: string }[] }>('/api/v1/targets');
      const tenant = again?.activeTargets.find((t) => t.labels.job === 'toolgate-tenant-key');
      return tenant?.health === 'down' ? tenant : undefined;
    }).then((tenant) => expect(tenant.lastError).toContain('403'));

    const rules = await eventually('the rules to be evaluated', async () => {
      const data = await prometheus?.api<{ groups: { name: string; rules: { name: string; health: string; lastError?: string }[] }[] }>('/api/v1/rules');
      const all = data?.groups.flatMap((g) => g.rules) ?? [];
      return all.length > 0 && all.every((r) => r.health !== 'unknown') ? all : undefined;
    });
    expect(rules.filter((r) => r.health !== 'ok').map((r) => `${r.name}: ${r.lastError}`)).toEqual([]);
    expect(rules.map((r) => r.name)).toEqual(
      expect.arrayContaining(['ToolgateToolFailureRateHigh', 'ToolgateBreakerOpenLong', 'ToolgateApprovalWaitingLong', 'ToolgateSearchSlow', 'ToolgateIndexNotSynced']),
    );
  });
});
