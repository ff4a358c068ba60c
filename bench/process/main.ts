/**
 * Process footprint of the embedded default profile: the idle server's resident memory once every tool
 * is indexed (a fresh data directory, the local model, the bundled plugins; the server process alone,
 * its plugin worker processes apart), and the wall time and peak memory of CLI commands that never
 * search. Each measurement runs `--runs` times in fresh processes; prints one JSON object and writes it
 * to bench/process/results/<date>-process.json (`-2`, `-3`, ... for later runs that day).
 *   npm run bench:process [-- --runs 3 --settle-ms 5000]
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const root = join(__dirname, '..', '..', '..');
const bin = join(root, 'apps', 'gateway', 'bin', 'toolgate.js');
const mb = (kb: number) => Math.round(kb / 1024);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A field of /proc/<pid>/status in kB (Linux). */
function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1] ?? Number.NaN);
}

/** Resident memory of the processes whose parent is `pid` (the plugin workers), summed. */
function childrenKb(pid: number): number {
  const out = execFileSync('ps', ['-o', 'rss=', '--ppid', String(pid)], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter(Boolean)
    .reduce((sum, line) => sum + Number(line.trim()), 0);
}

async function waitReady(url: string, timeoutMs: number): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} not ready within ${timeoutMs} ms`);
}

async function idleServer(port: number, settleMs: number) {
  const dataDir = mkdtempSync(join(tmpdir(), 'toolgate-bench-'));
  const server = spawn(process.execPath, [bin, 'serve', '--port', String(port)], { env: { ...process.env, TOOLGATE_DATA_DIR: dataDir }, stdio: 'ignore' });
  try {
    const readyMs = await waitReady(`http://127.0.0.1:${port}/health/ready`, 120_000);
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    const pid = server.pid as number;
    return { readyMs: Math.round(readyMs), rssMb: mb(statusKb(pid, 'VmRSS')), peakRssMb: mb(statusKb(pid, 'VmHWM')), pluginWorkersRssMb: mb(childrenKb(pid)) };
  } finally {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** One CLI command in a fresh process: wall time, and its peak RSS as the process itself reports it on exit. */
function cliCommand(args: string[], dataDir: string) {
  const probe = "process.on('exit', () => require('node:fs').writeSync(2, '\\npeak-rss-kb ' + process.resourceUsage().maxRSS + '\\n'))";
  const started = performance.now();
  const result = spawnSync(process.execPath, ['-e', `${probe}; process.argv.splice(1, 0, ${JSON.stringify(bin)}); require(${JSON.stringify(bin)})`, ...args], {
    env: { ...process.env, TOOLGATE_DATA_DIR: dataDir },
    encoding: 'utf8',
  });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`toolgate ${args.join(' ')} failed: ${result.stderr.slice(-500)}`);
  const peak = /peak-rss-kb (\d+)/.exec(result.stderr);
  return { ms: Math.round(ms), peakRssMb: peak ? mb(Number(peak[1])) : null };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' }, 'settle-ms': { type: 'string', default: '5000' }, port: { type: 'string', default: '4391' } } });
  const runs = Number(values.runs);
  const servers = [];
  for (let i = 0; i < runs; i++) servers.push(await idleServer(Number(values.port), Number(values['settle-ms'])));
  const dataDir = mkdtempSync(join(tmpdir(), 'toolgate-bench-cli-'));
  const commands: Record<string, ReturnType<typeof cliCommand>[]> = {};
  try {
    cliCommand(['tools', 'list', '--json'], dataDir); // the first command creates the catalog; not counted
    for (const args of [
      ['tools', 'list', '--json'],
      ['plugins', 'list', '--json'],
      ['tools', 'show', 'units/convert', '--json'],
      ['search', 'convert 10 km to miles', '--json'],
    ]) {
      commands[args.slice(0, 2).join(' ')] = Array.from({ length: runs }, () => cliCommand(args, dataDir));
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  const result = {
    bench: 'process',
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, memoryGb: Math.round(totalmem() / 2 ** 30), node: process.version },
    how: 'median of fresh processes; server: fresh data dir, default embedded profile, measured settle-ms after /health/ready; CLI: catalog created by one earlier command',
    idleServer: { runs: servers, medianRssMb: median(servers.map((s) => s.rssMb)) },
    cli: Object.fromEntries(
      Object.entries(commands).map(([name, samples]) => [name, { samples, medianMs: median(samples.map((s) => s.ms)), medianPeakRssMb: median(samples.map((s) => s.peakRssMb ?? 0)) }]),
    ),
  };
  const out = JSON.stringify(result, null, 2);
  process.stdout.write(`${out}\n`);
  const results = join(root, 'bench', 'process', 'results');
  mkdirSync(results, { recursive: true });
  // A second run on the same day is kept beside the first: `-2`, `-3`, ...
  let file = join(results, `${result.date.slice(0, 10)}-process.json`);
  for (let n = 2; existsSync(file); n++) file = join(results, `${result.date.slice(0, 10)}-process-${n}.json`);
  writeFileSync(file, `${out}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
