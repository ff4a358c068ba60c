import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BM25_ONLY, graphql, REPO_ROOT, type RunningGateway, startGateway } from '../support/gateway-process';
import { renderTableImage } from '../support/text-image';

/*
 * Issue 5, item 10 over HTTP against the built server: a caller submits the four-step plan with
 * bindings (executePlan); the executor runs the bundled plugins (real tesseract, real chart rendering)
 * and the last step checks the chart. Offline: no model, no network.
 */

const KEY = 'dana-analyst-key-000000001';
const POLICY = `
roles:
  analyst:
    grants:
      - tools: "{vision,table,chart}/*"
        actions: [discover, execute]
        maxRisk: read
apiKeys:
  - key: ${KEY}
    tenant: acme
    subject: dana
    roles: [analyst]
`;

const EXECUTE = `mutation($plan: PlanInput!) {
  executePlan(plan: $plan) { id status reason steps { id tool status output error { code message path } reason } }
}`;

interface RunData {
  executePlan: {
    status: string;
    reason: string | null;
    steps: { id: string; tool: string; status: string; output: Record<string, unknown> | null; error: { code: string; message: string; path: string | null } | null; reason: string | null }[];
  };
}

const SALES: [string, string, number][] = [
  ['Q1', 'North', 1200],
  ['Q1', 'South', 980],
  ['Q2', 'North', 1350],
  ['Q2', 'South', 1010],
  ['Q3', 'North', 990],
  ['Q3', 'South', 1105],
  ['Q4', 'North', 1500],
  ['Q4', 'South', 2500],
];
const screenshot = renderTableImage([['Quarter', 'Region', 'Amount'], ...SALES.map(([q, r, a]) => [q, r, a.toLocaleString('en-US')])]);
const ref = (step: string, pointer: string) => ({ $ref: `steps.${step}.output${pointer}` });

/** Screenshot -> table -> revenue per quarter -> line chart -> chart check, wired by bindings only. */
function visualPlan(imageBase64: string) {
  return {
    id: 'visual-workflow',
    steps: [
      { id: 'extract', tool: 'vision/extract-table', arguments: { imageBase64, mimeType: 'image/png' } },
      {
        id: 'group',
        tool: 'table/group-by',
        arguments: { rows: ref('extract', '/records'), groupBy: ['Quarter'], aggregations: [{ op: 'sum', column: 'Amount', as: 'Revenue' }] },
        dependsOn: ['extract'],
      },
      {
        id: 'chart',
        tool: 'chart/render',
        arguments: { type: 'line', title: 'Revenue by quarter', labels: ref('group', '/byColumn/Quarter'), series: [{ name: 'Revenue', values: ref('group', '/byColumn/Revenue') }] },
        dependsOn: ['group'],
      },
      { id: 'check', tool: 'vision/inspect-chart', arguments: { pngBase64: ref('chart', '/pngBase64'), expectedTitle: 'Revenue by quarter' }, dependsOn: ['chart'] },
    ],
  };
}

describe('visual workflow over HTTP (executePlan with bindings)', () => {
  let work: string;
  let gateway: RunningGateway;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'toolgate-visual-'));
    const policyFile = join(work, 'toolgate.config.yaml');
    writeFileSync(policyFile, POLICY);
    gateway = await startGateway({ ...BM25_ONLY, TOOLGATE_DATA_DIR: join(work, 'data'), TOOLGATE_PLUGIN_DIRS: join(REPO_ROOT, 'plugins'), TOOLGATE_CONFIG: policyFile, HOST: '127.0.0.1' });
  });
  afterAll(async () => {
    await gateway?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('runs the four steps and the check finds the title and one series', async () => {
    const response = await graphql<RunData>(gateway.url, EXECUTE, { key: KEY, variables: { plan: visualPlan(screenshot.toString('base64')) } });
    expect(response.errors).toBeUndefined();
    const run = response.data?.executePlan;
    expect({ status: run?.status, steps: run?.steps.map((s) => [s.id, s.status]) }).toEqual({
      status: 'SUCCEEDED',
      steps: [
        ['extract', 'SUCCEEDED'],
        ['group', 'SUCCEEDED'],
        ['chart', 'SUCCEEDED'],
        ['check', 'SUCCEEDED'],
      ],
    });
    const output = (id: string) => run?.steps.find((s) => s.id === id)?.output as Record<string, unknown>;
    const quarters = ['Q1', 'Q2', 'Q3', 'Q4'];
    expect(output('group').byColumn).toEqual({
      Quarter: quarters,
      Revenue: quarters.map((q) => SALES.filter(([quarter]) => quarter === q).reduce((sum, [, , amount]) => sum + amount, 0)),
    });
    const check = output('check');
    expect({ ...check, title: String(check.title).toLowerCase().replace(/\s+/g, ' ').trim() }).toMatchObject({
      title: 'revenue by quarter',
      seriesCount: 1,
      titleMatches: true,
      width: 800,
      height: 500,
    });
  });

  it('a step given non-image bytes fails with INVALID_ARGUMENTS and the steps after it are skipped', async () => {
    const notAnImage = Buffer.from('Quarter,Amount\nQ1,100\n').toString('base64');
    const response = await graphql<RunData>(gateway.url, EXECUTE, { key: KEY, variables: { plan: visualPlan(notAnImage) } });
    const run = response.data?.executePlan;
    expect(run?.status).toBe('FAILED');
    expect(run?.steps.map((s) => [s.id, s.status, s.error?.code ?? null])).toEqual([
      ['extract', 'FAILED', 'INVALID_ARGUMENTS'],
      ['group', 'SKIPPED', null],
      ['chart', 'SKIPPED', null],
      ['check', 'SKIPPED', null],
    ]);
  });
});
