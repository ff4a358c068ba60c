import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './ports';
import { startServiceProcess } from './service-process';

export interface ScrapeJob {
  job: string;
  /** host:port of the gateway. */
  target: string;
  /** The API key Prometheus sends (`authorization: {credentials}`); none: no header. */
  key?: string;
}

export interface RunningPrometheus {
  url: string;
  /** An instant query's vector: each series' labels and value. */
  query(expr: string): Promise<{ metric: Record<string, string>; value: number }[]>;
  /** GET an API path, e.g. `/api/v1/targets`, as parsed JSON `data`. */
  api<T>(path: string): Promise<T>;
  logs(): string;
  stop(): Promise<void>;
}

/**
 * Runs the real Prometheus (Debian's package, installed by scripts/ensure-prometheus.sh) on a free
 * port of 127.0.0.1 with its data under `work`: it scrapes `jobs` every second and evaluates
 * `ruleFiles` every second. Missing, it fails the test, never skips it.
 */
export async function startPrometheus(work: string, jobs: ScrapeJob[], ruleFiles: string[] = []): Promise<RunningPrometheus> {
  const port = await freePort();
  mkdirSync(join(work, 'tsdb'), { recursive: true });
  const config = {
    global: { scrape_interval: '1s', evaluation_interval: '1s', scrape_timeout: '1s' },
    rule_files: ruleFiles,
    scrape_configs: jobs.map(({ job, target, key }) => ({
      job_name: job,
      metrics_path: '/metrics',
      static_configs: [{ targets: [target] }],
      ...(key ? { authorization: { type: 'Bearer', credentials: key } } : {}),
    })),
  };
  // JSON is YAML: no YAML writer needed.
  const configFile = join(work, 'prometheus.yml');
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  const check = spawnSync('promtool', ['check', 'config', configFile], { encoding: 'utf8' });
  if (check.error) throw new Error(`promtool is not installed (scripts/ensure-prometheus.sh installs it): ${check.error.message}`);
  if (check.status !== 0) throw new Error(`promtool refused the generated config:\n${check.stdout}${check.stderr}`);

  const url = `http://127.0.0.1:${port}`;
  const service = await startServiceProcess(
    'prometheus',
    'prometheus',
    [`--config.file=${configFile}`, `--storage.tsdb.path=${join(work, 'tsdb')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    `${url}/-/ready`,
    'scripts/ensure-prometheus.sh installs it',
  );

  const api = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${url}${path}`);
    const body = (await response.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`prometheus ${path}: ${body.error}`);
    return body.data;
  };
  return {
    url,
    api,
    query: async (expr) => {
      const data = await api<{ result: { metric: Record<string, string>; value: [number, string] }[] }>(`/api/v1/query?query=${encodeURIComponent(expr)}`);
      return data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
    },
    ...service,
  };
}
