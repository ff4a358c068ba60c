import { USAGE_EXAMPLES_PER_TOOL } from '@toolgate/registry';
import { Command, InvalidArgumentError } from 'commander';
import { type AppConfig, loadConfig } from '../config/app.config';
import type { EvalRetrievalFlags } from './eval-retrieval.command';
import { printJson, printTable, truncate } from './output';
import type { PlanFlags } from './plan.command';
import type { RunFlags } from './run.command';

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
}

function fraction(value: string): number {
  const n = Number(value);
  if (!(n > 0 && n < 1)) throw new InvalidArgumentError('must be a number between 0 and 1');
  return n;
}

function kList(value: string): number[] {
  const ks = value.split(',').map((v) => positiveInt(v.trim()));
  return [...new Set(ks)].sort((a, b) => a - b);
}

/** Opens the registry and index in-process (no HTTP), acting as the principal of --key or the local admin. */
async function withCore<T>(config: AppConfig, key: string | undefined, work: (core: import('./cli-core').CliCore) => Promise<T>): Promise<T> {
  const { openCliCore } = await import('./cli-core');
  const core = await openCliCore(config, key);
  try {
    return await work(core);
  } finally {
    await core.close();
  }
}

export function buildCli(): Command {
  const program = new Command('toolgate').description('Toolgate: find, plan and safely run the few tools a caller may use.').version('0.1.0').showHelpAfterError();
  const config = () => loadConfig();

  program
    .command('serve')
    .description('start the GraphQL server (embedded profile unless DATABASE_URL etc. are set)')
    .option('-p, --port <port>', 'port (default: $PORT or 4000)')
    .option('-H, --host <host>', 'address to bind (default: 127.0.0.1 without API keys)')
    .action(async (options: { port?: string; host?: string }) => {
      const startedAt = performance.now();
      const env = { ...process.env, ...(options.port ? { PORT: options.port } : {}), ...(options.host ? { HOST: options.host } : {}) };
      const appConfig = loadConfig(env);
      const { startTracing } = await import('../tracing/tracing');
      const tracing = startTracing(appConfig.gateway);
      const { startServer } = await import('../server');
      const app = await startServer(appConfig, startedAt);
      const stop = async () => {
        await app.close();
        await tracing?.shutdown();
      };
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    });

  const tools = program.command('tools').description('the tool catalog');
  tools
    .command('list')
    .description('list the tools the caller may discover')
    .option('--namespace <ns>', 'only this namespace')
    .option('--key <apiKey>', 'act as the principal of this API key (default: $TOOLGATE_API_KEY, or the local admin)')
    .option('--json', 'print JSON only')
    .action(async (options: { namespace?: string; key?: string; json?: boolean }) => {
      await withCore(config(), options.key, async (core) => {
        const list = core.catalog.listTools(core.principal, { namespace: options.namespace });
        if (options.json)
          return printJson(
            list.map((t) => ({
              id: t.id,
              activeVersion: t.active?.version ?? null,
              versions: t.versions.map((v) => ({ version: v.version, state: v.state })),
              title: t.active?.descriptor.title,
              risk: t.active?.risk,
            })),
          );
        printTable(
          ['id', 'version', 'risk', 'title'],
          list.map((t) => [t.id, t.active?.version ?? '-', t.active?.risk ?? '-', truncate(t.active?.descriptor.title ?? '', 50)]),
        );
      });
    });

  program
    .command('search')
    .description('find the tools that best fit a task')
    .argument('<query>', 'what you want to do, in words')
    .option('-k, --k <n>', 'how many results', positiveInt)
    .option('--key <apiKey>', 'act as the principal of this API key (default: $TOOLGATE_API_KEY, or the local admin)')
    .option('--json', 'print JSON only')
    .action(async (query: string, options: { k?: number; key?: string; json?: boolean }) => {
      await withCore(config(), options.key, async (core) => {
        const results = await core.search.execute({ query, k: options.k }, core.principal);
        if (options.json) {
          return printJson(
            results.map(({ tool, hit }) => ({
              id: tool.id,
              version: hit.version,
              score: hit.fused,
              title: tool.active?.descriptor.title,
              lexical: hit.lexical ?? null,
              semantic: hit.semantic ?? null,
            })),
          );
        }
        if (results.length === 0) return void process.stdout.write('no matching tools\n');
        printTable(
          ['#', 'id', 'bm25', 'vector', 'title', 'matched'],
          results.map(({ tool, hit }) => [
            hit.rank,
            tool.id,
            hit.lexical ? `#${hit.lexical.rank}` : '-',
            hit.semantic ? `#${hit.semantic.rank} ${hit.semantic.score.toFixed(2)}` : '-',
            truncate(tool.active?.descriptor.title ?? '', 36),
            (hit.lexical?.matchedTerms ?? []).join(' '),
          ]),
        );
      });
    });

  program
    .command('plan')
    .description('plan a task: which tools, with which arguments, in which order (nothing runs)')
    .argument('<task>', 'what you want done, in words')
    .option('--image <file>', 'an image that is part of the task (repeatable)', (value: string, all: string[] = []) => [...all, value])
    .option('--session <id>', 'keep conversation state under this id (follow-ups such as "and in EUR?")')
    .option('--time-zone <zone>', 'IANA zone for dates and times without one (default: $TOOLGATE_TIME_ZONE or UTC)')
    .option('--at <instant>', 'ISO-8601 instant that relative dates resolve against (default: now)')
    .option('--key <apiKey>', 'act as the principal of this API key (default: $TOOLGATE_API_KEY, or the local admin)')
    .option('--json', 'print JSON only')
    .action(async (task: string, options: PlanFlags) => {
      const { printPlan, readTaskImages } = await import('./plan.command');
      await withCore(config(), options.key, async (core) => {
        const images = await readTaskImages(options.image ?? []);
        const {
          result,
          candidates,
          images: described,
        } = await core.planTask.plan({ text: task, images, sessionId: options.session, timeZone: options.timeZone, referenceTime: options.at }, core.principal);
        printPlan(
          result,
          candidates,
          described.map((d) => d.text),
          options.json,
        );
      });
    });

  program
    .command('run')
    .description('plan a task and run it, showing each step on stderr; exits non-zero unless the run SUCCEEDED')
    .argument('<task>', 'what you want done, in words')
    .option('--image <file>', 'an image that is part of the task (repeatable)', (value: string, all: string[] = []) => [...all, value])
    .option('--key <apiKey>', 'act as the principal of this API key (default: $TOOLGATE_API_KEY, or the local admin)')
    .option('--json', 'print the final run as JSON only (progress still goes to stderr)')
    .action(async (task: string, options: RunFlags) => {
      const { printRun, progressLine } = await import('./run.command');
      const { readTaskImages } = await import('./plan.command');
      await withCore(config(), options.key, async (core) => {
        const images = await readTaskImages(options.image ?? []);
        const progress = core.runEvents.all().subscribe(({ event }) => {
          const line = progressLine(event);
          if (line) process.stderr.write(`${line}\n`);
        });
        const interrupt = new AbortController();
        const onSigint = () => interrupt.abort(new Error('interrupted (SIGINT)'));
        process.once('SIGINT', onSigint);
        try {
          const run = await core.runTask.execute({ text: task, images }, core.principal, { signal: interrupt.signal });
          printRun(run, options.json);
          if (run.status === 'PENDING_APPROVAL') process.stderr.write('the run waits for an approval, which needs a server (toolgate serve): it is cancelled as the CLI exits\n');
          if (run.status !== 'SUCCEEDED') process.exitCode = 1;
        } finally {
          process.removeListener('SIGINT', onSigint);
          progress.unsubscribe();
        }
      });
    });

  const plugins = program.command('plugins').description('plugin packages');
  plugins
    .command('list')
    .description('list plugin packages and their load status')
    .option('--json', 'print JSON only')
    .action(async (options: { json?: boolean }) => {
      await withCore(config(), undefined, async (core) => {
        const list = core.catalog.listPlugins();
        if (options.json) return printJson(list);
        printTable(
          ['package', 'version', 'status', 'tools', 'error'],
          list.map((p) => [p.packageName, p.version, p.status, p.toolCount, truncate(p.error ? `${p.error.message} ${p.error.details.map((d) => `${d.path}: ${d.message}`).join('; ')}` : '', 70)]),
        );
      });
    });

  const examples = program.command('examples').description('usage examples: queries that led to a tool, added to its index document');
  examples
    .command('import')
    .description('import labelled queries as usage examples (admin); nothing is stored if any line is bad')
    .argument('<file>', 'JSON Lines: {"query", "tool": "namespace/name"} or the eval format {qid, query, gold[], split} per line')
    .option('--split <name>', 'only the lines of this split (eval format)')
    .option('--key <apiKey>', 'act as the principal of this API key (default: $TOOLGATE_API_KEY, or the local admin)')
    .option('--json', 'print JSON only')
    .action(async (file: string, options: { split?: string; key?: string; json?: boolean }) => {
      await withCore(config(), options.key, async (core) => {
        core.access.assertAdmin(core.principal, 'importing usage examples');
        const result = await core.usage.importFile(file, { split: options.split });
        if (options.json) return printJson(result);
        const dropped = result.dropped > 0 ? `, ${result.dropped} oldest dropped to keep at most ${USAGE_EXAMPLES_PER_TOOL} per tool` : '';
        process.stdout.write(`imported ${result.imported} usage examples for ${result.tools} tools (${result.duplicates} duplicates skipped${dropped})\n`);
      });
    });
  examples
    .command('list')
    .description('list stored usage examples (admin: they are what callers asked)')
    .option('--tool <id>', 'only this tool (namespace/name)')
    .option('--key <apiKey>', 'act as the principal of this API key (default: $TOOLGATE_API_KEY, or the local admin)')
    .option('--json', 'print JSON only')
    .action(async (options: { tool?: string; key?: string; json?: boolean }) => {
      await withCore(config(), options.key, async (core) => {
        core.access.assertAdmin(core.principal, 'listing usage examples');
        const list = await core.usage.list({ toolId: options.tool });
        if (options.json) return printJson(list);
        if (list.length === 0) return void process.stdout.write('no usage examples\n');
        printTable(
          ['tool', 'source', 'added', 'query'],
          list.map((e) => [e.toolId, e.source, e.createdAt.toISOString(), truncate(e.query, 70)]),
        );
      });
    });

  const evaluation = program.command('eval').description('measure retrieval and planning on labelled sets');
  evaluation
    .command('retrieval')
    .description('Recall@k, nDCG@k, MRR, Comp@k and latency of tool retrieval on tools.jsonl + queries.jsonl')
    .requiredOption('--tools <file>', 'tools.jsonl: {id, name, description, text?} per line')
    .requiredOption('--queries <file>', 'queries.jsonl: {qid, query, gold[], split} per line')
    .option('--split <name>', "the split to score (default: the first query's split)")
    .option('--train-split <name>', 'learn usage examples from this split first')
    .option('--train-fraction <f>', 'learn from this seeded fraction of --split and score the rest', fraction)
    .option('--seed <n>', 'seed of the --train-fraction draw', positiveInt, 42)
    .option('--driver <name>', 'index driver', 'embedded')
    .option('--embedder <name>', 'embedding driver: local (the in-process model), none (lexical only) or hashing', 'local')
    .option('--k <list>', 'cut-offs, comma-separated', kList, [1, 3, 5, 10])
    .option('--reranker <name>', 'rerank stage: feature (lexical features), llm (OPENAI_API_KEY / OPENAI_BASE_URL, TOOLGATE_RERANK_MODEL) or none', 'feature')
    .option('--decomposition <on|off>', 'search the clauses of multi-part queries one by one', 'on')
    .option('--sample <n>', 'score only this many queries, a seeded draw (quick iteration)', positiveInt)
    .option('--tuning-fraction <f>', 'split the queries by a seeded draw: this fraction to tune on, the rest held out', fraction)
    .option('--score <part>', 'with --tuning-fraction: score the tuning part or the holdout (default)', (value: string) => {
      if (value !== 'tuning' && value !== 'holdout') throw new InvalidArgumentError('must be tuning or holdout');
      return value;
    })
    .option('--json', 'print one JSON object only')
    .action(async (options: EvalRetrievalFlags) => {
      const { evalRetrieval } = await import('./eval-retrieval.command');
      await evalRetrieval(options);
    });
  evaluation
    .command('plan')
    .description('node-F1, link-F1, accuracy and planning latency on a TaskBench-format folder (data.json, tool_desc.json, graph_desc.json, split_ids.json)')
    .requiredOption('--dataset <dir>', 'the TaskBench-format folder')
    .option('--split <name>', 'test (the test_ids of split_ids.json) or dev (a fixed fifth of the other samples, for tuning)', 'test')
    .option('--planner <name>', 'deterministic or llm', 'deterministic')
    .option('--embedder <name>', 'local (the in-process model) or none (lexical only)', 'local')
    .option('--k <n>', 'retrieval top-k per sub-goal and for the whole task', positiveInt, 5)
    .option('--limit <n>', 'score only the first n tasks of the split', positiveInt)
    .option('--no-learn', 'do not learn usage examples and tool-graph edges from the training samples')
    .option('--json', 'print one JSON object only')
    .action(async (options: import('./eval-plan.command').EvalPlanFlags) => {
      const { evalPlan } = await import('./eval-plan.command');
      await evalPlan(options);
    });
  evaluation
    .command('arguments')
    .description('how exactly arguments are filled from task text by schema, and whether every missing one turns into CLARIFY, on a labelled tasks.jsonl')
    .option('--file <tasks.jsonl>', 'labelled tasks over the installed plugins', 'test/fixtures/argument-filling/tasks.jsonl')
    .option('--json', 'print one JSON object only')
    .action(async (options: { file: string; json?: boolean }) => {
      const { evalArguments } = await import('./eval-arguments.command');
      await evalArguments(options);
    });

  return program;
}
