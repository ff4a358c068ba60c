import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { ClientNats } from '@nestjs/microservices';
import { descriptorHash, ErrorCode, type ErrorDetail, namespaceOfPackage, ToolgateError, type ToolManifest, validateManifest } from '@toolgate/sdk';
import type { NatsConnection } from 'nats';
import { Subject } from 'rxjs';
import semver from 'semver';
import { REGISTRY_OPTIONS, type RegistryModuleOptions } from '../../registry.module-definition';
import { type FailedPlugin, manifestFromDescriptor, type PluginLoadResult } from '../npm/plugin.loader';
import type { GuardedServerNats } from './guarded-nats.server';
import {
  acceptedSchema,
  announcementSchema,
  callRoute,
  firstIssue,
  heartbeatSchema,
  type RemoteCall,
  replySchema,
  type Subjects,
  subjectsOf,
  type WorkerAnnouncement,
  type WorkerHeartbeat,
} from './remote-worker.protocol';

/** How a gateway or a worker reaches NATS. */
export interface NatsOptions {
  servers: string[];
  user?: string;
  password?: string;
  /** A NATS user nkey seed, instead of user and password. */
  nkeySeed?: string;
  /** Subject prefix of this deployment: gateways and workers of one deployment share it. */
  prefix: string;
}

export interface RemoteWorkersOptions extends NatsOptions {
  /** How long the first catalog load waits for running workers to announce themselves. */
  discoveryMs: number;
  /** Heartbeats a worker may miss before it counts as gone (its calls fail UNAVAILABLE, its tools unhealthy). */
  missedHeartbeats: number;
}

export const DEFAULT_REMOTE_TIMING = { discoveryMs: 1_000, missedHeartbeats: 3 } as const;

/**
 * The NATS transport (nats.js, Nest's NATS client and our guarded server), required on first use:
 * most deployments have no remote workers, and every process that loads the registry (the CLI too)
 * would otherwise load it.
 */
export async function loadNatsTransport(): Promise<{ GuardedServerNats: typeof GuardedServerNats; ClientNats: typeof ClientNats }> {
  const [{ GuardedServerNats: server }, { ClientNats: client }] = await Promise.all([import('./guarded-nats.server'), import('@nestjs/microservices')]);
  return { GuardedServerNats: server, ClientNats: client };
}

/** The connection settings nats.js takes, from ours: reconnect forever, and wait for a server that is not up yet. */
export const natsConnectOptions = (options: NatsOptions, name: string) => ({
  servers: options.servers,
  name,
  ...(options.user !== undefined ? { user: options.user, pass: options.password ?? '' } : {}),
  ...(options.nkeySeed ? { authenticator: (require('nats') as typeof import('nats')).nkeyAuthenticator(new TextEncoder().encode(options.nkeySeed)) } : {}),
  waitOnFirstConnect: true,
  maxReconnectAttempts: -1,
  reconnectTimeWait: 250,
});

interface LiveWorker {
  heartbeat: WorkerHeartbeat;
  lastSeenAt: number;
  /** Call routes (see callRoute) it serves, from its last announcement matching the heartbeat's digest. */
  routes: ReadonlySet<string>;
  digest?: string;
  /** The packages it announced that passed the checks, by `name@version`: what could be offered once the offered host is gone. */
  packages: ReadonlyMap<string, Omit<OfferedPackage, 'from'>>;
}

interface OfferedPackage {
  name: string;
  version: string;
  /** The call route (see callRoute) of each tool, in announcement order. */
  routes: readonly string[];
  tools: ToolManifest[];
  /** The worker whose announcement is offered; another worker's differing descriptor is offered only once no worker hosts this one. */
  from: string;
}

interface PendingCall {
  workerId?: string;
  fail(error: ToolgateError): void;
}

/** sha256 over a worker's sorted call routes: its catalog in one value (its heartbeat carries it). */
export function catalogDigest(routes: Iterable<string>): string {
  return createHash('sha256')
    .update([...routes].sort().join('\n'))
    .digest('hex');
}

const unavailable = (message: string, notStarted: boolean): ToolgateError => Object.assign(new ToolgateError(ErrorCode.UNAVAILABLE, message), notStarted ? { notStarted: true } : {});

/**
 * The gateway's side of remote tool workers: listens to their announcements and heartbeats over NATS
 * (@nestjs/microservices' NATS transport), offers the tools they host to the catalog (as the `remote`
 * tool source), and carries calls to them — request-reply on a subject per descriptor hash, served by
 * a queue group, so the workers hosting one pinned version share its calls and a worker whose
 * descriptor drifted is never called. A worker that stops heartbeating is gone: its calls in flight
 * fail UNAVAILABLE at once (retried only for idempotent tools), and a tool no live worker hosts is unhealthy.
 */
@Injectable()
export class RemoteWorkers implements OnApplicationShutdown {
  private readonly logger = new Logger('RemoteWorkers');
  private readonly options: RemoteWorkersOptions | null;
  private readonly subjects: Subjects;
  private readonly changed = new Subject<void>();
  /** Emits when what workers offer changed (a new package version, a drifted one taking over): the catalog loads this source again. */
  readonly changes$ = this.changed.asObservable();
  private readonly workers = new Map<string, LiveWorker>();
  private readonly offered = new Map<string, OfferedPackage>();
  private readonly pending = new Map<string, PendingCall>();
  private readonly refused = new Map<string, FailedPlugin>();
  private listener?: GuardedServerNats;
  private client?: ClientNats;
  private connection?: Promise<void>;
  private sweeper?: NodeJS.Timeout;
  private closed = false;

  constructor(@Inject(REGISTRY_OPTIONS) options: RegistryModuleOptions) {
    this.options = options.remote ?? null;
    this.subjects = subjectsOf(this.options?.prefix ?? 'toolgate');
  }

  get enabled(): boolean {
    return this.options !== null;
  }

  /** Every package version a worker announced since this gateway started, and announcements refused (the catalog records them FAILED). */
  async load(): Promise<PluginLoadResult[]> {
    if (!this.options) return [];
    await this.connect();
    const offered: PluginLoadResult[] = [...this.offered.values()].map((pkg) => ({
      ok: true,
      dir: `nats:${pkg.from}`,
      identity: { name: pkg.name, version: pkg.version },
      namespace: namespaceOfPackage(pkg.name),
      tools: pkg.tools,
    }));
    return [...offered, ...this.refused.values()];
  }

  /** Workers alive now that host `toolId@version` with the descriptor `hash`. */
  liveWorkers(toolId: string, version: string, hash: string): { workerId: string; inFlight: number; capacity: number }[] {
    return this.liveOn(callRoute(toolId, version, hash));
  }

  private liveOn(route: string): { workerId: string; inFlight: number; capacity: number }[] {
    const now = Date.now();
    return [...this.workers.entries()]
      .filter(([, worker]) => worker.routes.has(route) && !this.isGone(worker, now))
      .map(([workerId, worker]) => ({ workerId, inFlight: worker.heartbeat.inFlight, capacity: worker.heartbeat.capacity }));
  }

  /**
   * Runs one call on a worker hosting `call.hash`, answering with the tool's output. UNAVAILABLE when
   * no worker hosts it (marked not started: safe to retry) or the worker died during the call;
   * TIMEOUT past the deadline; the signal's abort cancels it on the worker too.
   */
  async call(call: RemoteCall, signal: AbortSignal): Promise<unknown> {
    const client = this.client;
    if (!this.options || !client) throw unavailable('remote tool workers are not configured (TOOLGATE_NATS_URL)', true);
    const route = callRoute(call.toolId, call.version, call.hash);
    if (this.liveOn(route).length === 0) throw unavailable(`no live worker hosts ${call.toolId}@${call.version}`, true);
    signal.throwIfAborted();
    return new Promise<unknown>((resolve, reject) => {
      let settled = false;
      const settle = (outcome: () => unknown, cancelRemote: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.pending.delete(call.callId);
        subscription.unsubscribe();
        if (cancelRemote) client.emit(this.subjects.cancel, { callId: call.callId }).subscribe({ error: () => undefined });
        try {
          resolve(outcome());
        } catch (error) {
          reject(error);
        }
      };
      const fail = (error: unknown, cancelRemote = false) =>
        settle(() => {
          throw error;
        }, cancelRemote);
      const onAbort = () => fail(signal.reason ?? new ToolgateError(ErrorCode.CANCELLED, `${call.toolId} was cancelled`), true);
      const timer = setTimeout(() => fail(new ToolgateError(ErrorCode.TIMEOUT, `${call.toolId}@${call.version} did not answer before its deadline`), true), Math.max(1, call.deadlineAt - Date.now()));
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(call.callId, { fail: (error) => fail(error) });
      const subscription = client.send(this.subjects.call(route), call).subscribe({
        next: (raw: unknown) => settle(() => this.outputOf(call, raw), false),
        error: (error: unknown) => fail(this.transportError(call, error)),
      });
    });
  }

  private outputOf(call: RemoteCall, raw: unknown): unknown {
    const parsed = replySchema.safeParse(raw);
    if (!parsed.success) throw new ToolgateError(ErrorCode.TOOL_FAILED, `the worker's answer to ${call.toolId} is not a valid reply: ${firstIssue(parsed.error)}`);
    const reply = parsed.data;
    if (reply.ok) return reply.output;
    // The worker's classification travels with the code: the retrying layer reads `transient` and `notStarted`.
    throw Object.assign(new ToolgateError(reply.error.code, reply.error.message), reply.error.transient ? { transient: true } : {}, reply.error.notStarted ? { notStarted: true } : {});
  }

  private transportError(call: RemoteCall, error: unknown): ToolgateError {
    const message = error instanceof Error ? error.message : String(error);
    // NATS answers a request no subscriber can take with "no responders": nothing ran.
    if (/no subscribers|no responders|empty response/i.test(message)) return unavailable(`no worker took the call of ${call.toolId}@${call.version}`, true);
    return Object.assign(unavailable(`calling ${call.toolId}@${call.version} over NATS failed: ${message}`, false), { cause: error });
  }

  /** Connects once; the first load waits the discovery window for running workers to announce themselves. */
  private connect(): Promise<void> {
    this.connection ??= this.open();
    return this.connection;
  }

  private async open(): Promise<void> {
    const options = this.options as RemoteWorkersOptions;
    const connect = natsConnectOptions(options, 'toolgate-gateway');
    // Required here: a gateway without NATS never loads the transport.
    const { GuardedServerNats, ClientNats } = await loadNatsTransport();
    const listener = new GuardedServerNats(connect);
    listener.addHandler(this.subjects.announce, async (data: unknown) => this.onAnnouncement(data), true);
    listener.addHandler(this.subjects.heartbeat, async (data: unknown) => this.onHeartbeat(data), true);
    listener.addHandler(this.subjects.accepted, async (data: unknown) => this.onAccepted(data), true);
    this.listener = listener;
    this.client = new ClientNats(connect);
    const ready = Promise.all([
      new Promise<void>((resolve, reject) => listener.listen((error?: unknown) => (error ? reject(error) : resolve()))),
      this.client.connect().then((connection: NatsConnection) => connection),
    ]).then(() => {
      if (this.closed) return;
      this.logger.log({ servers: options.servers, prefix: options.prefix }, 'connected to NATS: listening for tool workers');
      this.client?.emit(this.subjects.discover, {}).subscribe({ error: () => undefined });
    });
    ready.catch((error: unknown) => this.logger.error({ err: error }, 'NATS connection failed'));
    this.sweeper = setInterval(() => this.sweep(), 250);
    this.sweeper.unref();
    // A NATS server that is not up yet does not hold up the boot: workers' tools arrive when it is (changes$).
    const window = new Promise<void>((resolve) => setTimeout(resolve, options.discoveryMs).unref());
    await Promise.race([ready.then(() => window), window.then(() => window)]).catch(() => undefined);
  }

  private onHeartbeat(data: unknown): void {
    const parsed = heartbeatSchema.safeParse(data);
    if (!parsed.success) {
      this.logger.warn({ issue: firstIssue(parsed.error) }, 'ignored a heartbeat that is not valid');
      return;
    }
    const heartbeat = parsed.data;
    const known = this.workers.get(heartbeat.workerId);
    if (known && known.digest === heartbeat.digest) {
      known.heartbeat = heartbeat;
      known.lastSeenAt = Date.now();
      return;
    }
    // A worker this gateway has not heard announce (it started first, or its catalog changed): ask for the announcement.
    this.client?.emit(this.subjects.discover, { workerId: heartbeat.workerId }).subscribe({ error: () => undefined });
  }

  private onAccepted(data: unknown): void {
    const parsed = acceptedSchema.safeParse(data);
    if (!parsed.success) return;
    const pending = this.pending.get(parsed.data.callId);
    if (pending) pending.workerId = parsed.data.workerId;
  }

  private onAnnouncement(data: unknown): void {
    const parsed = announcementSchema.safeParse(data);
    if (!parsed.success) {
      this.logger.warn({ issue: firstIssue(parsed.error) }, 'ignored a worker announcement that is not valid');
      return;
    }
    const announcement = parsed.data;
    const routes = new Set<string>();
    const packages = new Map<string, Omit<OfferedPackage, 'from'>>();
    let changed = false;
    for (const pkg of announcement.packages) {
      const key = `${pkg.name}@${pkg.version}`;
      const checked = this.checkPackage(announcement, pkg);
      if (!checked.ok) {
        this.refused.set(`${announcement.workerId}:${key}`, checked.failure);
        this.logger.warn({ worker: announcement.workerId, package: key, err: checked.failure.error }, 'refused a package a worker announced');
        changed = true;
        continue;
      }
      for (const route of checked.routes) routes.add(route);
      const announced = { name: pkg.name, version: pkg.version, routes: checked.routes, tools: checked.tools };
      packages.set(key, announced);
      const current = this.offered.get(key);
      const same = current && current.routes.length === checked.routes.length && current.routes.every((route, i) => route === checked.routes[i]);
      if (same) continue;
      if (current && this.liveOn(current.routes[0]).some((w) => w.workerId !== announcement.workerId)) {
        this.logger.warn(
          { worker: announcement.workerId, package: key, offeredBy: current.from },
          'a worker announces a package version whose descriptors differ from the ones other workers host: it gets none of their calls',
        );
        continue;
      }
      this.offered.set(key, { ...announced, from: announcement.workerId });
      changed = true;
    }
    this.workers.set(announcement.workerId, { heartbeat: { ...announcement }, lastSeenAt: Date.now(), routes, digest: announcement.digest, packages });
    if (changed) this.changed.next();
  }

  /** A package as announced, checked as a plugin's would be: manifests valid, names unique, each hash the descriptor's own. */
  private checkPackage(announcement: WorkerAnnouncement, pkg: WorkerAnnouncement['packages'][number]): { ok: true; tools: ToolManifest[]; routes: string[] } | { ok: false; failure: FailedPlugin } {
    const identity = { name: pkg.name, version: pkg.version };
    const issues: ErrorDetail[] = [];
    if (!semver.valid(pkg.version)) issues.push({ path: '/version', message: 'must be a semver version' });
    const tools: ToolManifest[] = [];
    const hashes: string[] = [];
    const names = new Set<string>();
    pkg.tools.forEach(({ descriptor, hash }, i) => {
      const manifest = manifestFromDescriptor(descriptor as never, pkg.name);
      const at = `/tools/${i}`;
      issues.push(...validateManifest(manifest, at));
      if (manifest.execution !== 'remote') issues.push({ path: `${at}/execution`, message: 'must be "remote" for a tool a worker hosts' });
      if (names.has(manifest.name)) issues.push({ path: `${at}/name`, message: `duplicate tool name "${manifest.name}"` });
      names.add(manifest.name);
      if (issues.length === 0 && descriptorHash(manifest) !== hash) issues.push({ path: `${at}/hash`, message: "is not the descriptor's sha256" });
      tools.push(manifest);
      hashes.push(hash);
    });
    if (issues.length > 0) {
      const error = new ToolgateError(ErrorCode.PLUGIN_INVALID, `worker ${announcement.workerId} announced ${pkg.name}@${pkg.version} with invalid tools`, issues);
      return { ok: false, failure: { ok: false, dir: `nats:${announcement.workerId}`, identity: semver.valid(pkg.version) ? identity : undefined, label: pkg.name, error } };
    }
    return { ok: true, tools, routes: tools.map((tool, i) => callRoute(`${namespaceOfPackage(pkg.name)}/${tool.name}`, pkg.version, hashes[i])) };
  }

  private isGone(worker: LiveWorker, now: number): boolean {
    const missed = this.options?.missedHeartbeats ?? DEFAULT_REMOTE_TIMING.missedHeartbeats;
    return now - worker.lastSeenAt > worker.heartbeat.intervalMs * (missed + 0.5);
  }

  /**
   * Forgets workers that stopped heartbeating and fails the calls they had taken. A package version whose
   * offered descriptors no live worker hosts any more goes to a live worker announcing different ones:
   * the catalog sees the changed descriptors and holds the version until they are approved.
   */
  private sweep(): void {
    const now = Date.now();
    let gone = false;
    for (const [workerId, worker] of this.workers) {
      if (!this.isGone(worker, now)) continue;
      gone = true;
      this.workers.delete(workerId);
      this.logger.warn({ worker: workerId, silentMs: now - worker.lastSeenAt }, 'a tool worker stopped heartbeating: counted gone');
      for (const pending of this.pending.values()) {
        if (pending.workerId === workerId) pending.fail(unavailable(`worker ${workerId} stopped answering during the call`, false));
      }
    }
    if (gone) this.offerWhatLiveWorkersHost();
  }

  private offerWhatLiveWorkersHost(): void {
    let changed = false;
    for (const [key, offered] of this.offered) {
      if (this.liveOn(offered.routes[0]).length > 0) continue;
      const successor = [...this.workers].flatMap(([workerId, worker]) => {
        const pkg = worker.packages.get(key);
        return pkg ? [{ ...pkg, from: workerId }] : [];
      })[0];
      if (!successor) continue;
      this.logger.warn(
        { worker: successor.from, package: key, offeredBy: offered.from },
        'no live worker hosts the offered descriptors of a package version: offering the ones another worker announced',
      );
      this.offered.set(key, successor);
      changed = true;
    }
    if (changed) this.changed.next();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    for (const pending of this.pending.values()) pending.fail(new ToolgateError(ErrorCode.CANCELLED, 'the gateway shut down before the call finished'));
    await Promise.all([this.listener?.close(), this.client?.close()]);
  }
}
