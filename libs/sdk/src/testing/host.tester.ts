import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ErrorCode, type ErrorDetail, ToolgateError } from '../errors/toolgate.errors';
import { descriptorHash } from '../manifest/descriptor.hash';
import type { ToolManifest, ToolPrincipal } from '../manifest/manifest.types';
import { validateManifest } from '../manifest/manifest.validator';
import { formatToolId, namespaceOfPackage } from '../manifest/tool.id';
import { packageCodeHash } from '../plugin/package-code.hash';
import { type PluginPackageJson, parsePluginPackageJson } from '../plugin/plugin.package';
import { type CallSinks, DEFAULT_WORKER_OPTIONS, PluginWorker, type WorkerOptions, workerProfile } from '../sandbox/plugin.worker';
import { pluginEntry } from '../sandbox/plugin-process.policy';
import { checkAgainstSchema } from '../schema/json-schema.validator';
import { errorOf, exampleIssues } from './tool.tester';

/** How long a worker may take to start and load a tool, apart from the tool's own timeout. */
const LOAD_TIMEOUT_MS = 30_000;

export interface HostTesterOptions extends Partial<WorkerOptions> {
  /** Who calls: tools see it as `ctx.principal`. */
  principal?: ToolPrincipal;
}

export interface HostCallOptions {
  /** Cancels the call (CANCELLED), as a caller cancelling a run does. */
  signal?: AbortSignal;
  /** Overrides the tool's `limits.timeoutMs` for this call. */
  timeoutMs?: number;
}

/** What a tool logged through `ctx.logger`, in order. */
export interface HostLogEntry {
  tool: string;
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  fields?: Record<string, unknown>;
}

export interface HostTester {
  /** The package as the host read it, and its tools by name. */
  readonly package: PluginPackageJson;
  readonly tools: ReadonlyMap<string, ToolManifest>;
  /** Every `ctx.logger` line of every call so far. */
  readonly logs: HostLogEntry[];
  /** Runs one call as the gateway does; resolves with the output or rejects with the ToolgateError the caller would see. */
  call(name: string, args: Record<string, unknown>, options?: HostCallOptions): Promise<unknown>;
  /** The ToolgateError a call ends with; throws when it succeeds or fails with anything else. */
  failure(name: string, args: Record<string, unknown>, options?: HostCallOptions): Promise<ToolgateError>;
  /** Runs every example through `call`: problems per tool name, `{}` when every example passes. */
  examples(): Promise<Record<string, ErrorDetail[]>>;
  /** Stops the worker processes (call it in `after`/`afterAll`). */
  close(): Promise<void>;
}

/**
 * Host mode of the testing kit: a built plugin package, run the way a gateway runs it, not in the
 * test's own process. Arguments are checked against the inputSchema before the call, the call runs in
 * a worker process with the permission profile its scopes give (no network without `net:fetch`, no
 * writes without `fs:write`, no processes without `proc:*`, only the declared environment), under its
 * `limits.timeoutMs` (TIMEOUT, and a tool that ignores its abort loses its worker), with its output
 * bounded by `limits.maxOutputBytes` and checked against its outputSchema. Each profile keeps one
 * worker, so state survives calls as it does within one tenant's pool. No retries: a test sees the
 * first failure.
 */
export async function hostTester(packageDir: string, options: HostTesterOptions = {}): Promise<HostTester> {
  const dir = resolve(packageDir);
  const pkg = parsePluginPackageJson(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')));
  const { entry } = pluginEntry(dir, pkg.name);
  const tools = loadTools(entry, pkg);
  const codeHash = packageCodeHash(dir);
  const code = codeHash === null ? null : { root: dir, hash: codeHash };
  const settings: WorkerOptions = { ...DEFAULT_WORKER_OPTIONS, ...options };
  const principal = options.principal ?? { tenant: 'test-tenant', subject: 'test-subject' };
  const logs: HostLogEntry[] = [];
  /** The worker each permission profile calls next, and every live worker (one still busy with an abandoned call included). */
  const current = new Map<string, PluginWorker>();
  const live = new Set<PluginWorker>();
  let calls = 0;

  const workerFor = (manifest: ToolManifest): PluginWorker => {
    const profile = workerProfile(manifest, { version: pkg.version, dir, entry, code }, pkg.toolgate);
    const key = JSON.stringify([profile.readPaths, profile.write, profile.spawn]);
    const running = current.get(key);
    // A worker still busy (another call in flight, or a timed-out call in its kill grace) is not reused.
    if (running?.alive && !running.busy) return running;
    const worker = new PluginWorker(profile, settings, {
      free: (freed) => {
        if (current.get(key) !== freed) void freed.stop(new ToolgateError(ErrorCode.UNAVAILABLE, 'replaced'));
      },
      exited: (gone) => {
        live.delete(gone);
        if (current.get(key) === gone) current.delete(key);
      },
    });
    live.add(worker);
    current.set(key, worker);
    return worker;
  };

  const call = async (name: string, args: Record<string, unknown>, callOptions: HostCallOptions = {}): Promise<unknown> => {
    const manifest = tools.get(name);
    const id = formatToolId(namespaceOfPackage(pkg.name), name);
    if (!manifest) throw new ToolgateError(ErrorCode.TOOL_NOT_FOUND, `${pkg.name} exports no tool "${name}" (it has ${[...tools.keys()].join(', ') || 'none'})`);
    const invalid = checkAgainstSchema(manifest.inputSchema, args, '/arguments');
    if (invalid.length > 0) throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `the arguments do not match the input schema of ${id}`, invalid);
    const timeoutMs = callOptions.timeoutMs ?? manifest.limits.timeoutMs;
    const callId = `host-test-${++calls}`;
    const sinks: CallSinks = {
      logger: {
        debug: (message, fields) => logs.push({ tool: name, level: 'debug', message, fields }),
        info: (message, fields) => logs.push({ tool: name, level: 'info', message, fields }),
        warn: (message, fields) => logs.push({ tool: name, level: 'warn', message, fields }),
        error: (message, fields) => logs.push({ tool: name, level: 'error', message, fields }),
      },
      span: { setAttribute: () => undefined, addEvent: () => undefined },
    };
    const worker = workerFor(manifest);
    // A gateway's workers boot and load the tool before a call reaches them (spares): the tool's timeout covers its run, not the process start.
    if (!worker.loaded.has(name)) {
      const loading = callOptions.signal ? AbortSignal.any([callOptions.signal, AbortSignal.timeout(LOAD_TIMEOUT_MS)]) : AbortSignal.timeout(LOAD_TIMEOUT_MS);
      await worker.call({ type: 'load', callId: `host-test-load-${++calls}`, tool: name, descriptorHash: descriptorHash(manifest), scopes: [] }, loading, sinks).catch((error: unknown) => {
        if (ToolgateError.is(error, ErrorCode.TIMEOUT)) throw new ToolgateError(ErrorCode.TIMEOUT, `${id} did not load within ${LOAD_TIMEOUT_MS} ms`, [], { cause: error });
        throw error;
      });
    }
    const signal = callOptions.signal ? AbortSignal.any([callOptions.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
    let output: unknown;
    try {
      output = await worker.call(
        {
          type: 'run',
          callId,
          tool: name,
          descriptorHash: descriptorHash(manifest),
          arguments: args,
          scopes: [...manifest.permissions.scopes],
          idempotencyKey: `${callId}:key`,
          principal,
          maxOutputBytes: Math.min(manifest.limits.maxOutputBytes ?? settings.maxOutputBytes, settings.maxOutputBytes),
        },
        signal,
        sinks,
      );
    } catch (error) {
      if (ToolgateError.is(error, ErrorCode.TIMEOUT)) throw new ToolgateError(ErrorCode.TIMEOUT, `${id} did not finish within ${timeoutMs} ms`, [], { cause: error });
      throw error;
    }
    const wrong = checkAgainstSchema(manifest.outputSchema, output, '/output');
    if (wrong.length > 0) throw new ToolgateError(ErrorCode.TOOL_FAILED, `OUTPUT of ${id} does not match its outputSchema: ${wrong[0].path} ${wrong[0].message}`, wrong);
    return output;
  };

  return {
    package: pkg,
    tools,
    logs,
    call,
    failure: (name, args, callOptions) => errorOf(name, () => call(name, args, callOptions)),
    async examples() {
      const problems: Record<string, ErrorDetail[]> = {};
      for (const [name, manifest] of tools) {
        const issues = await exampleIssues(manifest, (args) => call(name, args));
        if (issues.length > 0) problems[name] = issues;
      }
      return problems;
    },
    async close() {
      await Promise.all([...live].map((worker) => worker.stop(new ToolgateError(ErrorCode.UNAVAILABLE, 'the host tester was closed'))));
    },
  };
}

/** The package's tools as the host reads them: PLUGIN_INVALID with every problem, per tool. */
function loadTools(entry: string, pkg: PluginPackageJson): Map<string, ToolManifest> {
  const mod = require(entry) as { tools?: unknown; default?: unknown };
  const exported = mod.tools ?? mod.default;
  if (!Array.isArray(exported)) throw new ToolgateError(ErrorCode.PLUGIN_INVALID, `${pkg.name}: ${entry} exports no \`tools\` array`, [{ path: '/tools', message: 'is not exported' }]);
  const problems: ErrorDetail[] = [];
  const tools = new Map<string, ToolManifest>();
  for (const [i, tool] of (exported as ToolManifest[]).entries()) {
    for (const issue of validateManifest(tool)) problems.push({ path: `/tools/${i}${issue.path}`, message: issue.message });
    if (tools.has(tool?.name)) problems.push({ path: `/tools/${i}/name`, message: `"${tool.name}" is exported twice` });
    tools.set(tool?.name, tool);
  }
  if (problems.length > 0) throw new ToolgateError(ErrorCode.PLUGIN_INVALID, `${pkg.name} has invalid tools`, problems);
  return tools;
}
