import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { ClientNats } from '@nestjs/microservices';
import { propagation, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { type ExecutionRouteHandlers, SchemaCache, serverExecutionRoute } from '@toolgate/executor';
import {
  CatalogService,
  callRoute,
  callSchema,
  cancelSchema,
  catalogDigest,
  firstIssue,
  type GuardedServerNats,
  loadNatsTransport,
  McpConnections,
  natsConnectOptions,
  type RemoteCall,
  type RemoteReply,
  RemoteWorkers,
  subjectsOf,
  ToolVersionState,
  type WorkerAnnouncement,
} from '@toolgate/registry';
import { descriptorHash, ErrorCode, type ToolDescriptor, ToolgateError, toDescriptor } from '@toolgate/sdk';
import type { NatsConnection } from 'nats';
import type { WorkerConfig } from './worker.config';

export const WORKER_CONFIG = Symbol('WORKER_CONFIG');

interface HostedVersion {
  toolId: string;
  version: string;
  packageName: string;
  descriptor: ToolDescriptor;
  hash: string;
}

const tracer = trace.getTracer('toolgate.worker');

/** Room left in a NATS message for the reply's envelope around the output. */
const ENVELOPE_BYTES = 4 * 1024;

/**
 * A tool worker: hosts the plugin packages of its folders (loaded, validated and isolated exactly as
 * the gateway's own) and serves their calls over NATS. It announces every version it hosts with its
 * descriptor and hash, heartbeats with its load, and answers calls on one subject per tool version and descriptor hash (callRoute)
 * in the deployment's queue group, so the workers of one version share its calls. A call is checked
 * (shape, hosted hash, arguments against the schema, deadline, capacity) before it runs; the tool's
 * signal aborts at the deadline or when a gateway cancels the call.
 */
@Injectable()
export class ToolWorkerService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ToolWorker');
  private readonly subjects;
  private readonly hosted = new Map<string, HostedVersion>();
  private readonly running = new Map<string, AbortController>();
  private readonly schemas = new SchemaCache();
  private readonly route: ExecutionRouteHandlers;
  private server?: GuardedServerNats;
  private client?: ClientNats;
  private heartbeat?: NodeJS.Timeout;
  private failures = 0;
  private maxPayload = 1024 * 1024;
  private draining = false;

  constructor(
    private readonly catalog: CatalogService,
    @Inject(WORKER_CONFIG) private readonly config: WorkerConfig,
    mcp: McpConnections,
    remote: RemoteWorkers,
  ) {
    this.subjects = subjectsOf(config.nats.prefix);
    this.route = serverExecutionRoute.create({ catalog, options: config.executor, mcp, remote });
  }

  /** Runs after the registry loaded the plugins (this module imports it). */
  async onApplicationBootstrap(): Promise<void> {
    for (const version of this.hostable()) this.hosted.set(callRoute(version.toolId, version.version, version.hash), version);
    const connect = natsConnectOptions(this.config.nats, `toolgate-worker ${this.config.workerId}`);
    const { GuardedServerNats, ClientNats } = await loadNatsTransport();
    const server = new GuardedServerNats(connect);
    for (const route of this.hosted.keys()) server.addHandler(this.subjects.call(route), async (data: unknown) => this.serve(route, data), false, { queue: this.subjects.queue });
    server.addHandler(this.subjects.discover, async (data: unknown) => this.onDiscover(data), true);
    server.addHandler(this.subjects.cancel, async (data: unknown) => this.onCancel(data), true);
    this.server = server;
    this.client = new ClientNats(connect);
    this.logger.log({ worker: this.config.workerId, servers: this.config.nats.servers, versions: this.hosted.size }, 'connecting to NATS');
    const [, connection] = await Promise.all([
      new Promise<void>((resolve, reject) => server.listen((error?: unknown) => (error ? reject(error) : resolve()))),
      this.client.connect() as Promise<NatsConnection>,
    ]);
    this.maxPayload = connection.info?.max_payload ?? this.maxPayload;
    this.announce();
    this.heartbeat = setInterval(() => this.beat(), this.config.heartbeatMs);
    void this.route.start?.().catch((error: unknown) => this.logger.warn({ err: error }, 'warming plugin workers failed'));
    this.logger.log({ worker: this.config.workerId, tools: [...this.hosted.values()].map((v) => `${v.toolId}@${v.version}`), capacity: this.config.capacity }, 'tool worker serving');
  }

  /** Every loaded server-side version the catalog has not quarantined, as gateways will see it: `execution: remote`. */
  private hostable(): HostedVersion[] {
    return this.catalog.activeTools().flatMap((tool) =>
      tool.versions.flatMap((view) => {
        const manifest = this.catalog.manifest(tool.id, view.version);
        if (manifest?.execution !== 'server' || view.state === ToolVersionState.QUARANTINED) return [];
        const descriptor: ToolDescriptor = { ...toDescriptor(manifest), execution: 'remote' };
        return [{ toolId: tool.id, version: view.version, packageName: view.packageName, descriptor, hash: descriptorHash(descriptor) }];
      }),
    );
  }

  private announcement(): WorkerAnnouncement {
    const packages = new Map<string, WorkerAnnouncement['packages'][number]>();
    for (const version of this.hosted.values()) {
      const key = `${version.packageName}@${version.version}`;
      const pkg = packages.get(key) ?? { name: version.packageName, version: version.version, tools: [] };
      pkg.tools.push({ descriptor: version.descriptor as unknown as Record<string, unknown>, hash: version.hash });
      packages.set(key, pkg);
    }
    return { ...this.heartbeatFields(), packages: [...packages.values()] };
  }

  private heartbeatFields() {
    return {
      workerId: this.config.workerId,
      digest: catalogDigest(this.hosted.keys()),
      capacity: this.config.capacity,
      inFlight: this.running.size,
      failures: this.failures,
      intervalMs: this.config.heartbeatMs,
    };
  }

  private announce(): void {
    this.client?.emit(this.subjects.announce, this.announcement()).subscribe({ error: (error: unknown) => this.logger.warn({ err: error }, 'announcing failed') });
  }

  private beat(): void {
    this.client?.emit(this.subjects.heartbeat, this.heartbeatFields()).subscribe({ error: () => undefined });
  }

  private onDiscover(data: unknown): void {
    const workerId = data && typeof data === 'object' ? (data as { workerId?: unknown }).workerId : undefined;
    if (workerId === undefined || workerId === this.config.workerId) this.announce();
  }

  private onCancel(data: unknown): void {
    const parsed = cancelSchema.safeParse(data);
    if (parsed.success) this.running.get(parsed.data.callId)?.abort(new ToolgateError(ErrorCode.CANCELLED, 'the gateway cancelled the call'));
  }

  /** One call: every refusal is a typed reply, never a thrown error (the gateway retries by code). */
  private async serve(route: string, data: unknown): Promise<RemoteReply> {
    const refuse = (code: ErrorCode, message: string, notStarted = true, transient = false): RemoteReply => ({
      ok: false,
      workerId: this.config.workerId,
      error: { code, message, notStarted, ...(transient ? { transient } : {}) },
    });
    const parsed = callSchema.safeParse(data);
    if (!parsed.success) return refuse(ErrorCode.INVALID_ARGUMENTS, `not a valid call: ${firstIssue(parsed.error)}`);
    const call = parsed.data;
    const hosted = this.hosted.get(route);
    if (!hosted || call.hash !== hosted.hash || hosted.toolId !== call.toolId || hosted.version !== call.version) {
      return refuse(ErrorCode.TOOL_NOT_FOUND, `this worker does not host ${call.toolId}@${call.version} with descriptor ${call.hash.slice(0, 12)}`);
    }
    if (this.draining) return refuse(ErrorCode.UNAVAILABLE, `worker ${this.config.workerId} is shutting down`);
    if (this.running.has(call.callId)) return refuse(ErrorCode.INVALID_ARGUMENTS, `call ${call.callId} is already running here`, false);
    // Transient: the gateway tries again after its backoff, on whichever worker of the group has room by then.
    if (this.running.size >= this.config.capacity) return refuse(ErrorCode.OVERLOADED, `worker ${this.config.workerId} runs ${this.running.size} calls, its capacity`, true, true);
    const remaining = call.deadlineAt - Date.now();
    if (remaining <= 0) return refuse(ErrorCode.TIMEOUT, `the call of ${call.toolId} arrived after its deadline`);
    const issues = this.schemas.check(`${hosted.toolId}@${hosted.version}`, 'input', hosted.descriptor.inputSchema, call.arguments, '/arguments');
    if (issues.length > 0)
      return {
        ok: false,
        workerId: this.config.workerId,
        error: { code: ErrorCode.INVALID_ARGUMENTS, message: `arguments of ${call.toolId} are invalid: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, notStarted: true },
      };

    const controller = new AbortController();
    this.running.set(call.callId, controller);
    const deadline = setTimeout(() => controller.abort(new ToolgateError(ErrorCode.TIMEOUT, `${call.toolId} did not finish before its deadline`)), remaining);
    this.client?.emit(this.subjects.accepted, { callId: call.callId, workerId: this.config.workerId }).subscribe({ error: () => undefined });
    this.logger.debug({ callId: call.callId, tool: `${call.toolId}@${call.version}`, tenant: call.principal.tenant, attempt: call.attempt }, 'call accepted');
    try {
      const output = await this.traced(call, (span) => this.run(call, controller.signal, span));
      if (Buffer.byteLength(JSON.stringify(output ?? null)) > this.maxPayload - ENVELOPE_BYTES) {
        return refuse(ErrorCode.OUTPUT_TOO_LARGE, `the output of ${call.toolId} is larger than a NATS message may be (${this.maxPayload} bytes)`, false);
      }
      return { ok: true, workerId: this.config.workerId, output };
    } catch (error) {
      const typed = ToolgateError.is(error) ? error : new ToolgateError(ErrorCode.TOOL_FAILED, `${call.toolId} failed: ${error instanceof Error ? error.message : String(error)}`);
      if (typed.code === ErrorCode.INTERNAL || typed.code === ErrorCode.UNAVAILABLE) this.failures++;
      const marks = typed as unknown as { transient?: unknown; notStarted?: unknown };
      return {
        ok: false,
        workerId: this.config.workerId,
        error: { code: typed.code, message: typed.message.slice(0, 4_000), ...(marks.transient === true ? { transient: true } : {}), ...(marks.notStarted === true ? { notStarted: true } : {}) },
      };
    } finally {
      clearTimeout(deadline);
      this.running.delete(call.callId);
    }
  }

  /** The call as a span of this worker under the gateway's step span (its traceparent came with the call); a no-op without tracing. */
  private traced<T>(call: RemoteCall, work: (span: Span) => Promise<T>): Promise<T> {
    const parent = call.traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent: call.traceparent }) : ROOT_CONTEXT;
    const attributes = {
      'toolgate.tool': call.toolId,
      'toolgate.tool.version': call.version,
      'toolgate.worker.id': this.config.workerId,
      'toolgate.run.id': call.runId,
      'toolgate.step.id': call.stepId,
      'toolgate.step.attempt': call.attempt,
      'toolgate.tenant': call.principal.tenant,
    };
    return tracer.startActiveSpan('toolgate.worker.call', { kind: SpanKind.SERVER, attributes }, parent, async (span) => {
      try {
        return await work(span);
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
        if (ToolgateError.is(error)) span.setAttribute('toolgate.error.code', error.code);
        throw error;
      } finally {
        span.end();
      }
    });
  }

  private async run(call: RemoteCall, signal: AbortSignal, span: Span): Promise<unknown> {
    const invoker = this.route.invoker;
    const prepared = { toolId: call.toolId, version: call.version, callId: call.callId, principal: call.principal };
    try {
      await invoker.prepare(prepared, signal);
      return await invoker.invoke({
        toolId: call.toolId,
        version: call.version,
        arguments: call.arguments,
        principal: call.principal,
        runId: call.runId,
        stepId: call.stepId,
        attempt: call.attempt,
        callId: call.callId,
        idempotencyKey: call.idempotencyKey,
        signal,
        deadlineAt: call.deadlineAt,
        span,
      });
    } finally {
      invoker.release(prepared);
    }
  }

  /** Stops taking calls, lets the running ones finish within the drain timeout (TOOLGATE_DRAIN_TIMEOUT_MS), then disconnects. */
  async onApplicationShutdown(): Promise<void> {
    this.draining = true;
    clearInterval(this.heartbeat);
    await this.server?.close();
    const until = Date.now() + this.config.executor.resilience.drainTimeoutMs;
    while (this.running.size > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
    for (const controller of this.running.values()) controller.abort(new ToolgateError(ErrorCode.CANCELLED, 'the worker shut down before the call finished'));
    await this.client?.close();
    await this.route.close?.();
  }
}
