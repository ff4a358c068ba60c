import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BM25_ONLY, graphql, type RunningGateway, startGateway } from '../support/gateway-process';
import { pluginPackage, toolSource, writePlugin } from '../support/plugin-fixtures';

/**
 * An unhealthy tool version is not offered by search or planning and is not executed; its fallback is.
 * `weather/forecast` fails its health check; `weather/cached` is its fallback.
 */
const weatherPlugin = {
  folder: 'weather',
  packageJson: pluginPackage('@fixtures/weather', '1.0.0'),
  entry: `exports.tools = [
    { ...${toolSource('forecast', 'Forecasts the weather for a city from the live upstream service. Use it for weather questions.')},
      fallback: 'weather/cached',
      healthCheck: async () => ({ healthy: false, detail: 'upstream down' }),
      run: async () => { throw new Error('must not be called while unhealthy'); } },
    { ...${toolSource('cached', 'Answers weather questions from the last cached forecast. Use it when the live forecast is down.')},
      run: async (args) => ({ text: 'cached: ' + args.text }) },
  ];`,
};

const SEARCH = `query { searchTools(input: { query: "weather forecast for a city", k: 5 }) { tool { id } } }`;
const EXECUTE_PLAN = `mutation($plan: PlanInput!) { executePlan(plan: $plan) { status steps { id tool status output fallbackOf error { code } } } }`;
const TOOL_HEALTH = `query { toolHealth { toolId version health { healthy detail } } }`;

interface HealthRow {
  toolId: string;
  version: string;
  health: { healthy: boolean; detail: string | null } | null;
}

describe('tool health over HTTP', () => {
  let work: string;
  let gateway: RunningGateway;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'toolgate-health-'));
    writePlugin(join(work, 'plugins'), weatherPlugin);
    gateway = await startGateway({ ...BM25_ONLY, TOOLGATE_DATA_DIR: join(work, 'data'), TOOLGATE_PLUGIN_DIRS: join(work, 'plugins'), TOOLGATE_HEALTH_INTERVAL_MS: '1000' });
    // The monitor checks at start and then every second: wait until it has a verdict for the forecast.
    for (let i = 0; i < 100; i++) {
      const rows = (await graphql<{ toolHealth: HealthRow[] }>(gateway.url, TOOL_HEALTH)).data?.toolHealth ?? [];
      if (rows.some((row) => row.toolId === 'weather/forecast' && row.health?.healthy === false)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  afterAll(async () => {
    await gateway?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('reports the failing check with its detail', async () => {
    const response = await graphql<{ toolHealth: HealthRow[] }>(gateway.url, TOOL_HEALTH);
    expect(response.errors).toBeUndefined();
    expect(response.data?.toolHealth).toContainEqual(expect.objectContaining({ toolId: 'weather/forecast', health: { healthy: false, detail: 'upstream down' } }));
  });

  it('does not offer the unhealthy version in search', async () => {
    const response = await graphql<{ searchTools: { tool: { id: string } }[] }>(gateway.url, SEARCH);
    expect(response.errors).toBeUndefined();
    const ids = response.data?.searchTools.map((match) => match.tool.id);
    expect(ids).toContain('weather/cached');
    expect(ids).not.toContain('weather/forecast');
  });

  it('does not call it when a plan names it: the fallback answers', async () => {
    const plan = { steps: [{ id: 's1', tool: 'weather/forecast', arguments: { text: 'Berlin' } }] };
    const response = await graphql<{ executePlan: { status: string; steps: { tool: string; status: string; output: unknown; fallbackOf: string | null }[] } }>(gateway.url, EXECUTE_PLAN, {
      variables: { plan },
    });
    expect(response.errors).toBeUndefined();
    expect(response.data?.executePlan.status).toBe('SUCCEEDED');
    expect(response.data?.executePlan.steps).toEqual([
      expect.objectContaining({ status: 'FALLBACK', tool: expect.stringMatching(/^weather\/cached@/), fallbackOf: expect.stringMatching(/^weather\/forecast/), output: { text: 'cached: Berlin' } }),
    ]);
  });
});
