/**
 * Prints the Markdown tables of bench/retrieval/README.md from one results file:
 *   node bench/dist/retrieval/table.js bench/retrieval/results/<file>.json
 */
import { readFileSync } from 'node:fs';

interface Stats {
  p50: number;
  p95: number;
  p99?: number;
}

interface Row {
  size: number;
  driver: string;
  error?: string;
  indexing?: { ms: number; docsPerSecond: number } | null;
  query?: { funnel: Stats & { queriesPerSecond: number }; lexical: Stats; semantic: Stats };
  recallAt5?: number;
  concurrent?: { callers: number; searchesPerSecond: number; latencyMs: Stats }[];
  overhead?: Record<'lexical' | 'semantic', { driver: Stats; raw: Stats; ratio: { p50: number; p95: number; mean: number }; esTookMs: Stats; sameIdsAsDriver: number }>;
}

interface Agreement {
  size: number;
  funnel: { sameTop5Set: number; sameTop5Order: number; meanOverlapAt5: number };
  lexical: { sameTop5Set: number };
  semantic: { sameTop5Set: number };
}

interface Memory {
  size: number;
  per10kMb?: { rss: number; heapUsed: number; arrayBuffers: number; external?: number };
  deltaMb?: { rss: number; heapUsed: number; arrayBuffers: number; external?: number };
  error?: string;
}

const file = process.argv[2];
if (!file) throw new Error('usage: table.js <results.json>');
const run = JSON.parse(readFileSync(file, 'utf8')) as { results: Row[]; agreement: Agreement[]; memory: { sizes: Memory[] } | null };
const pair = (s: Stats | undefined) => (s ? `${s.p50} / ${s.p95}` : '–');
const out: string[] = [];

out.push('| tools | driver | index (s) | index docs/s | funnel p50 / p95 (ms) | lexical p50 / p95 | semantic p50 / p95 | funnel q/s | recall@5 |');
out.push('|---:|---|---:|---:|---:|---:|---:|---:|---:|');
for (const r of run.results) {
  if (r.error) {
    out.push(`| ${r.size} | ${r.driver} | failed: ${r.error} | | | | | | |`);
    continue;
  }
  out.push(
    `| ${r.size} | ${r.driver} | ${r.indexing ? (r.indexing.ms / 1000).toFixed(1) : '–'} | ${r.indexing?.docsPerSecond ?? '–'} | ${pair(r.query?.funnel)} | ${pair(r.query?.lexical)} | ${pair(r.query?.semantic)} | ${r.query?.funnel.queriesPerSecond} | ${r.recallAt5} |`,
  );
}

const concurrent = run.results.filter((r) => r.concurrent);
if (concurrent.length > 0) {
  out.push('', '| tools | driver | callers | searches/s | latency p50 / p99 (ms) |', '|---:|---|---:|---:|---:|');
  for (const r of concurrent) for (const c of r.concurrent ?? []) out.push(`| ${r.size} | ${r.driver} | ${c.callers} | ${c.searchesPerSecond} | ${c.latencyMs.p50} / ${c.latencyMs.p99 ?? '–'} |`);
}

const es = run.results.filter((r) => r.overhead);
if (es.length > 0) {
  out.push('', '| tools | side | driver p50 / p95 (ms) | raw client p50 / p95 | ratio p50 | ratio p95 | ratio mean | ES `took` p50 | same ids |', '|---:|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of es) {
    for (const side of ['lexical', 'semantic'] as const) {
      const o = r.overhead?.[side];
      if (o) out.push(`| ${r.size} | ${side} | ${pair(o.driver)} | ${pair(o.raw)} | ${o.ratio.p50} | ${o.ratio.p95} | ${o.ratio.mean} | ${o.esTookMs.p50} | ${o.sameIdsAsDriver} |`);
    }
  }
}

if (run.agreement.length > 0) {
  out.push('', '| tools | funnel same top-5 (set) | funnel same top-5 (order) | mean overlap@5 | lexical same top-5 | semantic same top-5 |', '|---:|---:|---:|---:|---:|---:|');
  for (const a of run.agreement) out.push(`| ${a.size} | ${a.funnel.sameTop5Set} | ${a.funnel.sameTop5Order} | ${a.funnel.meanOverlapAt5} | ${a.lexical.sameTop5Set} | ${a.semantic.sameTop5Set} |`);
}

if (run.memory) {
  out.push('', '| tools | heap MB / 10k | external MB / 10k (array buffers + wasm) | RSS MB / 10k | total heap + external MB |', '|---:|---:|---:|---:|---:|');
  for (const m of run.memory.sizes) {
    if (m.error || !m.per10kMb || !m.deltaMb) out.push(`| ${m.size} | failed: ${m.error} | | | |`);
    else {
      const external = m.deltaMb.external ?? m.deltaMb.arrayBuffers;
      out.push(`| ${m.size} | ${m.per10kMb.heapUsed} | ${m.per10kMb.external ?? m.per10kMb.arrayBuffers} | ${m.per10kMb.rss} | ${(m.deltaMb.heapUsed + external).toFixed(1)} |`);
    }
  }
}
process.stdout.write(`${out.join('\n')}\n`);
