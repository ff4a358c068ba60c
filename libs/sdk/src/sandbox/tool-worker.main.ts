import type { ToolManifest } from '../manifest/manifest.types';
import { BUILT_SDK_ENTRY, provideHostSdk } from './plugin-process.policy';
import type { AbortRequest, SerializedError, WorkerBoot, WorkerReply, WorkerRequest } from './tool-worker.protocol';

/*
 * The code of a plugin worker process. The host runs it as source text (`node -e`, see
 * TOOL_WORKER_SOURCE), so every function here must be self-contained: it may use its parameters,
 * `require` of Node builtins and of the paths it is given, and the other functions of this file by
 * name, never this module's imports (nor an `export const`, which compiles to `exports.x`). Running it
 * from source text works the same under ts-jest and from dist.
 *
 * Requests arrive on stdin and replies leave on fd 3, both as frames (4-byte big-endian length, then
 * JSON): a plain pipe whose frame sizes the host checks before it buffers anything, unlike Node's IPC
 * channel, which would buffer whatever the plugin sent.
 */

type NetRefusal = (host: string | undefined) => string | undefined;
type ToolLookup = (name: string, expectedHash: string) => ToolManifest;

function workerError(code: string, message: string): Error {
  // Named so the host revives it as a ToolgateError with this code.
  return Object.assign(new Error(message), { name: 'ToolgateError', code });
}

/** Why the running tool may not reach a host (undefined when it may), from the call's scopes and the allowed host globs. */
function netPolicy(netHosts: string[], scopesNow: () => string[]): NetRefusal {
  const globs = netHosts.map(
    (glob) =>
      new RegExp(
        `^${glob
          .toLowerCase()
          .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
          .replace(/\*/g, '.*')}$`,
      ),
  );
  return (host) => {
    const scopes = scopesNow();
    if (!scopes.includes('net:fetch')) return `network access needs the net:fetch scope (tried ${host ?? 'a local socket'})`;
    if (host === undefined) return 'local sockets are not allowed';
    const bare = host.toLowerCase().replace(/^\[|\]$/g, '');
    if (globs.length > 0 && !globs.some((g) => g.test(bare))) return `host "${bare}" is not in TOOLGATE_WORKER_NET_HOSTS`;
    return undefined;
  };
}

/** Puts every connection the thread opens behind `refusal`. */
function guardNetwork(refusal: NetRefusal): void {
  const net = require('node:net') as typeof import('node:net');
  // Every TCP/TLS client (net, http, https, undici's fetch) connects through Socket#connect.
  const connect = net.Socket.prototype.connect as (...args: unknown[]) => unknown;
  net.Socket.prototype.connect = function guardedConnect(this: unknown, ...args: unknown[]) {
    const [first, second] = args;
    const options = (Array.isArray(first) ? first[0] : first) as { host?: string; path?: string; port?: number } | number | string;
    const host =
      typeof options === 'object' && options !== null
        ? options.path
          ? undefined
          : (options.host ?? 'localhost')
        : typeof options === 'number'
          ? typeof second === 'string'
            ? second
            : 'localhost'
          : undefined;
    const why = refusal(host);
    if (why) throw workerError('FORBIDDEN', why);
    return connect.apply(this, args);
  } as typeof net.Socket.prototype.connect;
  const originalFetch = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const why = refusal(url.hostname);
    if (why) throw workerError('FORBIDDEN', why);
    return originalFetch(input, init);
  };
}

/**
 * The plugin's tools, loaded on first use: only while the folder still holds the package version this
 * worker serves (an upgrade in place replaces it) with the code the catalog loaded for it, and a tool
 * only while its descriptor hash is the one the catalog pinned.
 */
function pluginTools({ entry, sdk, version, packageJson, code }: WorkerBoot): ToolLookup {
  const { descriptorHash, packageCodeHash } = require(sdk) as { descriptorHash(manifest: ToolManifest): string; packageCodeHash(root: string): string | null };
  let tools: Map<string, { manifest: ToolManifest; hash: string }> | undefined;
  const load = () => {
    if (tools) return tools;
    const fs = require('node:fs') as typeof import('node:fs');
    const installed: { name?: string; version?: string } = JSON.parse(fs.readFileSync(packageJson, 'utf8')) ?? {};
    if (installed.version !== version) {
      throw workerError(
        'PLUGIN_INVALID',
        `the package folder now holds ${installed.name ?? 'a package'}@${installed.version ?? '?'}, not version ${version}: its code is not this version's; reload plugins`,
      );
    }
    // Hashed here, before any of it runs: the files must be those the catalog loaded, whatever was written there since.
    const found = code && packageCodeHash(code.root);
    if (code && found !== code.hash) {
      throw workerError(
        'PLUGIN_INVALID',
        `the code in ${code.root} is not the code loaded as version ${version} (code hash ${found ?? 'unreadable'}, loaded ${code.hash}): it changed on disk; reload plugins`,
      );
    }
    const mod = require(entry) as { tools?: unknown; default?: unknown };
    const exported = (mod.tools ?? mod.default) as ToolManifest[];
    tools = new Map(exported.map((m) => [m.name, { manifest: m, hash: descriptorHash(m) }]));
    return tools;
  };
  return (name, expectedHash) => {
    const found = load().get(name);
    if (!found) throw workerError('TOOL_NOT_FOUND', `the plugin no longer exports a tool "${name}"`);
    if (found.hash !== expectedHash) throw workerError('PLUGIN_INVALID', `tool "${name}" changed on disk since it was loaded (descriptor hash differs); reload plugins`);
    return found.manifest;
  };
}

/**
 * Whether `value` serialized as JSON is over `limit` bytes, decided without serializing it when it
 * clearly is (a lower bound on its size passes the limit), so an oversized output cannot exhaust the
 * worker just by being measured.
 */
function jsonOver(value: unknown, limit: number): { over: boolean; bytes: number; exact: boolean } {
  const stack: unknown[] = [value];
  let lowerBound = 0;
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') lowerBound += Buffer.byteLength(item, 'utf8') + 2;
    else if (item !== null && typeof item === 'object') {
      for (const [key, child] of Object.entries(item)) {
        lowerBound += Array.isArray(item) ? 1 : Buffer.byteLength(key, 'utf8') + 4;
        stack.push(child);
      }
    } else lowerBound += String(item).length;
    if (lowerBound > limit) return { over: true, bytes: lowerBound, exact: false };
  }
  const bytes = Buffer.byteLength(JSON.stringify(value ?? null), 'utf8');
  return { over: bytes > limit, bytes, exact: true };
}

/** Where a value stops being plain JSON, or undefined when it is plain JSON. */
function notJson(value: unknown, path: string, depth: number): string | undefined {
  if (depth > 200) return `${path || '/'} nests too deep`;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${path || '/'} is ${value}`;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = notJson(value[i], `${path}/${i}`, depth + 1);
      if (bad) return bad;
    }
    return undefined;
  }
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return `${path || '/'} is a ${proto?.constructor?.name ?? 'non-plain object'}`;
    for (const [key, item] of Object.entries(value)) {
      const bad = notJson(item, `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, depth + 1);
      if (bad) return bad;
    }
    return undefined;
  }
  return `${path || '/'} is a ${typeof value}`;
}

function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const e = error as Error & { code?: unknown; details?: unknown; transient?: unknown; cause?: { code?: unknown; cause?: { code?: unknown } } };
  const causeCode = e.cause?.code ?? e.cause?.cause?.code;
  return {
    name: e.name,
    message: e.message,
    ...(typeof e.code === 'string' ? { code: e.code } : {}),
    ...(Array.isArray(e.details) ? { details: (e.details as { path: unknown; message: unknown }[]).map((d) => ({ path: String(d.path), message: String(d.message) })) } : {}),
    ...(e.transient === true ? { transient: true } : {}),
    ...(typeof causeCode === 'string' ? { causeCode } : {}),
  };
}

function plainFields(fields: unknown): Record<string, unknown> | undefined {
  if (fields === undefined) return undefined;
  try {
    return JSON.parse(JSON.stringify(fields)) as Record<string, unknown>;
  } catch {
    return { unserializable: String(fields) };
  }
}

/** One request against the plugin: a warm-up load, a health check or a run, whose logs and span updates go to the host. */
async function executeRequest(request: WorkerRequest, signal: AbortSignal, toolFor: ToolLookup, post: (reply: WorkerReply) => void): Promise<unknown> {
  const manifest = toolFor(request.tool, request.descriptorHash);
  if (request.type === 'load') return null;
  if (request.type === 'health') {
    if (!manifest.healthCheck) return { healthy: true, detail: 'no health check declared' };
    const verdict = await manifest.healthCheck(signal);
    return typeof verdict === 'boolean' ? { healthy: verdict } : { healthy: verdict.healthy === true, ...(verdict.detail ? { detail: String(verdict.detail) } : {}) };
  }
  if (typeof manifest.run !== 'function') throw workerError('INVALID_PLAN', `tool "${request.tool}" has no server-side code (execution: ${manifest.execution})`);
  const { callId } = request;
  const log = (level: 'debug' | 'info' | 'warn' | 'error') => (message: string, fields?: Record<string, unknown>) =>
    post({ type: 'log', callId, level, message: String(message), fields: plainFields(fields) });
  const output = await manifest.run(request.arguments, {
    signal,
    callId,
    idempotencyKey: request.idempotencyKey,
    principal: Object.freeze({ ...request.principal }),
    logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
    span: {
      setAttribute: (key, value) => post({ type: 'span', callId, attribute: [String(key), value] }),
      addEvent: (name, attributes) => post({ type: 'span', callId, event: { name: String(name), attributes: plainFields(attributes) as Record<string, string> } }),
    },
  });
  const bad = notJson(output, '', 0);
  if (bad) throw workerError('TOOL_FAILED', `tool "${request.tool}" returned something that is not plain JSON: ${bad}`);
  return output;
}

/** Length-prefixed JSON frames out of a byte stream; `onFrame` gets each parsed message in order. */
function frameReader(onFrame: (message: unknown) => void): (chunk: Buffer) => void {
  let buffered: Buffer = Buffer.alloc(0);
  return (chunk) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    while (buffered.length >= 4) {
      const size = buffered.readUInt32BE(0);
      if (buffered.length < 4 + size) return;
      const body = buffered.subarray(4, 4 + size);
      buffered = buffered.subarray(4 + size);
      onFrame(JSON.parse(body.toString('utf8')));
    }
  };
}

/** The process's entry: waits for its boot message, guards the network, then runs one request at a time and answers aborts. */
function toolWorkerMain(): void {
  const net = require('node:net') as typeof import('node:net');
  // Opened before any plugin code runs. A plugin could still write to fd 3 itself, but only to forge
  // replies to its own calls: the host checks every frame.
  const replies = new net.Socket({ fd: 3, readable: false, writable: true });
  const writeFrame = (message: unknown) => {
    const body = Buffer.from(JSON.stringify(message), 'utf8');
    const header = Buffer.alloc(4);
    header.writeUInt32BE(body.length, 0);
    replies.write(Buffer.concat([header, body]));
  };
  let toolFor: ToolLookup | undefined;
  /** The call in progress (one per worker at a time); the network guard reads its scopes. */
  let current: { callId: string; scopes: string[]; controller: AbortController } | undefined;
  const post = (reply: WorkerReply) => writeFrame(reply);

  const onMessage = (message: { type: 'boot'; boot: WorkerBoot } | WorkerRequest | AbortRequest) => {
    if (message.type === 'boot') {
      guardNetwork(netPolicy(message.boot.netHosts, () => current?.scopes ?? []));
      toolFor = pluginTools(message.boot);
      return;
    }
    if (message.type === 'abort') {
      if (current?.callId === message.callId) {
        current.controller.abort(new DOMException(message.reason === 'TIMEOUT' ? 'the call timed out' : 'the call was cancelled', message.reason === 'TIMEOUT' ? 'TimeoutError' : 'AbortError'));
      }
      return;
    }
    const limit = message.type === 'run' ? message.maxOutputBytes : Number.POSITIVE_INFINITY;
    const controller = new AbortController();
    current = { callId: message.callId, scopes: message.scopes, controller };
    // Work a tool left running after its call ended gets no scopes (no network).
    const finished = () => {
      if (current?.callId === message.callId) current = undefined;
    };
    executeRequest(message, controller.signal, toolFor as ToolLookup, post).then(
      (value) => {
        finished();
        // Measured here, where only this tool's memory is at stake, before anything crosses to the host.
        const size = jsonOver(value, limit);
        if (size.over) {
          const bytes = `${size.exact ? '' : 'at least '}${size.bytes}`;
          post({
            type: 'result',
            callId: message.callId,
            ok: false,
            error: { name: 'ToolgateError', code: 'OUTPUT_TOO_LARGE', message: `tool "${message.tool}" returned ${bytes} bytes, over its limit of ${limit} (limits.maxOutputBytes)` },
          });
          return;
        }
        post({ type: 'result', callId: message.callId, ok: true, value });
      },
      (error: unknown) => {
        finished();
        post({ type: 'result', callId: message.callId, ok: false, error: serializeError(error) });
      },
    );
  };
  process.stdin.on(
    'data',
    frameReader((message) => onMessage(message as Parameters<typeof onMessage>[0])),
  );
  // The host closing its end means this worker is no longer wanted.
  process.stdin.on('end', () => process.exit(0));
}

/** What a plugin worker evaluates: each function above under its own name, then the entry. */
export const TOOL_WORKER_SOURCE = `${String(provideHostSdk)}\nprovideHostSdk(${JSON.stringify(BUILT_SDK_ENTRY)});\n${[workerError, netPolicy, guardNetwork, pluginTools, jsonOver, notJson, serializeError, plainFields, executeRequest, frameReader, toolWorkerMain].map(String).join('\n')}\ntoolWorkerMain();\n`;
