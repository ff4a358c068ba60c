import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { type Command, Option } from 'commander';
import { printJson, printTable } from '../cli.output';
import { fetchGateway, urlOption } from '../gateway.client';
import { type Percentile, parseExposition, summarize } from '../metrics.summary';

const seconds = (p: Percentile | null) => (p === null ? '-' : `${p.atLeast ? '>' : '≤'}${p.seconds < 1 ? `${Math.round(p.seconds * 1000)} ms` : `${p.seconds} s`}`);
const percent = (share: number) => `${(share * 100).toFixed(1)} %`;

/** GET <url>/metrics with the key, with an error that says what to do for each way it can fail. */
async function scrape(url: string, key: string | undefined): Promise<string> {
  const endpoint = `${url.replace(/\/+$/, '')}/metrics`;
  const response = await fetchGateway(endpoint, { headers: key ? { authorization: `Bearer ${key}` } : {}, signal: AbortSignal.timeout(10_000) });
  if (response.status === 401 || response.status === 403) {
    throw new ToolgateError(
      response.status === 401 ? ErrorCode.UNAUTHENTICATED : ErrorCode.FORBIDDEN,
      `${endpoint} answered ${response.status}: metrics need a platform admin's API key, from --key or $TOOLGATE_API_KEY`,
      [{ path: key ? '--key' : '$TOOLGATE_API_KEY', message: key ? 'not a platform admin key' : 'missing' }],
    );
  }
  if (response.status === 404) throw new ToolgateError(ErrorCode.UNAVAILABLE, `${endpoint} answered 404: the gateway serves no metrics (TOOLGATE_METRICS=false, or not a Toolgate gateway)`);
  if (!response.ok) throw new ToolgateError(ErrorCode.UNAVAILABLE, `${endpoint} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  return response.text();
}

export function registerMetricsCommand(program: Command): void {
  program
    .command('metrics')
    .description("a running gateway's tool calls, failures, retries, latency and breakers per tool version, from its /metrics (since it started)")
    .addOption(urlOption())
    .addOption(new Option('--key <apiKey>', "a platform admin's API key (needed when the gateway has keys)").env('TOOLGATE_API_KEY'))
    .option('--json', 'print JSON only')
    .action(async (options: { url: string; key?: string; json?: boolean }) => {
      const summary = summarize(parseExposition(await scrape(options.url, options.key)));
      if (options.json) return printJson(summary);
      if (summary.tools.length === 0) process.stdout.write('no tool calls yet\n');
      else
        printTable(
          ['tool', 'calls', 'failed (tool)', 'failure rate', 'refused', 'caller errors', 'retries', 'p95', 'breaker'],
          summary.tools.map((t) => [t.tool, t.calls, t.toolErrors, percent(t.failureRate), t.refused, t.callerErrors, t.retries, seconds(t.p95), t.breaker]),
        );
      const runs = Object.entries(summary.runs)
        .map(([status, count]) => `${count} ${status}`)
        .join(', ');
      const memory = summary.residentMemoryBytes === null ? '-' : `${Math.round(summary.residentMemoryBytes / 1024 / 1024)} MB`;
      process.stdout.write(
        [
          `runs: ${runs || 'none'}; approvals pending: ${summary.approvalsPending}`,
          `searches: ${summary.searches}, p95 ${seconds(summary.searchP95)}; index: ${summary.indexDocuments} documents, ${summary.vectorsPending} waiting for a vector`,
          `resident memory: ${memory}`,
          '',
        ].join('\n'),
      );
    });
}
