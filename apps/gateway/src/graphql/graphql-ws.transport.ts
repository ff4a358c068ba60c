import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { GraphQLSchemaHost } from '@nestjs/graphql';
import { AccessPolicyService } from '@toolgate/registry';
import { type ExecutionArgs, GraphQLError, getOperationAST, NoSchemaIntrospectionCustomRule, parse, specifiedRules, validate } from 'graphql';
import { CloseCode, type Context, handleProtocols, makeServer, type SubscribePayload } from 'graphql-ws';
import { type WebSocket, WebSocketServer } from 'ws';
import { bearerToken } from '../auth/principal.guard';
import { APP_CONFIG, type AppConfig } from '../config/app.config';
import { graphqlContext } from '../runs/subscription.context';
import { OperationLimits } from './operation-limits.service';

/** The WebSocket close code for a server that is overloaded for this client (RFC 6455 registry: "Try Again Later"). */
const TRY_AGAIN_LATER = 1013;
/** Ping interval; a peer that misses a pong for as long is dropped (graphql-ws's own default). */
const KEEP_ALIVE_MS = 12_000;

interface Extra {
  socket: WebSocket;
  request: IncomingMessage;
}
type WsContext = Context<Record<string, unknown> | undefined, Extra>;

/**
 * GraphQL over WebSocket (graphql-ws protocol) on the HTTP server's `/graphql` path, with the same
 * limits as HTTP: the API key is checked at `connection_init` (none: 4401, unknown: 4403, when keys
 * exist), connections are capped in all (503 before the handshake) and per principal (1013), a
 * message is at most TOOLGATE_MAX_BODY_BYTES (1009 beyond), and every operation passes the same
 * OperationLimits as over HTTP. Served here rather than through GraphQLModule's `subscriptions`
 * because Nest's WebSocket server takes no message size limit.
 */
@Injectable()
export class GraphqlWsTransport implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('GraphqlWs');
  private readonly openPerPrincipal = new Map<string, number>();
  private readonly principalOf = new WeakMap<WsContext, string>();
  private server?: WebSocketServer;
  private upgradeListener?: (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly adapterHost: HttpAdapterHost,
    private readonly schemaHost: GraphQLSchemaHost,
    private readonly limits: OperationLimits,
    private readonly access: AccessPolicyService,
  ) {}

  onApplicationBootstrap(): void {
    const { gateway } = this.config;
    const server = new WebSocketServer({ noServer: true, maxPayload: gateway.TOOLGATE_MAX_BODY_BYTES, handleProtocols });
    this.server = server;
    const protocol = makeServer<Record<string, unknown> | undefined, Extra>({
      schema: this.schemaHost.schema,
      context: (ctx) => graphqlContext(ctx),
      onConnect: (ctx) => this.connect(ctx),
      onClose: (ctx) => this.release(ctx),
      onSubscribe: (ctx, _id, payload) => this.subscribe(ctx, payload),
    });
    server.on('connection', (socket: WebSocket, request: IncomingMessage) => this.serve(protocol, socket, request));
    this.upgradeListener = (request, socket, head) => this.upgrade(request, socket, head);
    (this.adapterHost.httpAdapter.getHttpServer() as Server).on('upgrade', this.upgradeListener);
  }

  async onModuleDestroy(): Promise<void> {
    if (this.upgradeListener) (this.adapterHost.httpAdapter.getHttpServer() as Server).off('upgrade', this.upgradeListener);
    const server = this.server;
    if (!server) return;
    for (const client of server.clients) client.close(1001, 'Going away');
    await new Promise<void>((done) => server.close(() => done()));
  }

  /** graphql-ws's protocol over one `ws` socket (what graphql-ws/use/ws does, which TypeScript cannot import here), with keep-alive pings. */
  private serve(protocol: ReturnType<typeof makeServer<Record<string, unknown> | undefined, Extra>>, socket: WebSocket, request: IncomingMessage): void {
    socket.once('error', (error) => {
      this.logger.warn({ err: error }, 'WebSocket error');
      socket.close(CloseCode.InternalServerError, 'Internal server error');
    });
    let pongWait: NodeJS.Timeout | null = null;
    const ping = setInterval(() => {
      if (socket.readyState !== socket.OPEN) return;
      pongWait = setTimeout(() => socket.terminate(), KEEP_ALIVE_MS);
      socket.once('pong', () => {
        if (pongWait) clearTimeout(pongWait);
        pongWait = null;
      });
      socket.ping();
    }, KEEP_ALIVE_MS);
    const closed = protocol.opened(
      {
        protocol: socket.protocol,
        send: (data) => new Promise<void>((resolve, reject) => (socket.readyState === socket.OPEN ? socket.send(data, (error) => (error ? reject(error) : resolve())) : resolve())),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (handle) =>
          socket.on('message', async (data) => {
            try {
              await handle(String(data));
            } catch (error) {
              this.logger.error({ err: error }, 'graphql-ws message failed');
              socket.close(CloseCode.InternalServerError, 'Internal server error');
            }
          }),
      },
      { socket, request },
    );
    socket.once('close', (code, reason) => {
      if (pongWait) clearTimeout(pongWait);
      clearInterval(ping);
      void closed(code, String(reason));
    });
  }

  private upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const server = this.server as WebSocketServer;
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (path !== '/graphql') {
      refuseUpgrade(socket, 404, 'Not Found');
      return;
    }
    if (server.clients.size >= this.config.gateway.TOOLGATE_WS_MAX_CONNECTIONS) {
      this.logger.warn({ max: this.config.gateway.TOOLGATE_WS_MAX_CONNECTIONS }, 'WebSocket connection refused: the server is at TOOLGATE_WS_MAX_CONNECTIONS');
      refuseUpgrade(socket, 503, 'Service Unavailable', `at most ${this.config.gateway.TOOLGATE_WS_MAX_CONNECTIONS} WebSocket connections (TOOLGATE_WS_MAX_CONNECTIONS)`);
      return;
    }
    server.handleUpgrade(request, socket, head, (ws) => server.emit('connection', ws, request));
  }

  /** connection_init: authenticates the key in connectionParams and takes one of the principal's connection slots. */
  private connect(ctx: WsContext): boolean {
    const authorization = graphqlContext(ctx).req.headers.authorization;
    if (!this.access.localMode) {
      if (!bearerToken(authorization)) {
        ctx.extra.socket.close(CloseCode.Unauthorized, 'Unauthorized: send the API key in connectionParams.authorization');
        return false;
      }
      try {
        this.access.authenticate(bearerToken(authorization));
      } catch {
        return false; // graphql-ws closes with 4403 Forbidden
      }
    }
    const principal = this.limits.principalKey(authorization, ctx.extra.request.socket.remoteAddress ?? 'unknown');
    const open = this.openPerPrincipal.get(principal) ?? 0;
    const max = this.config.gateway.TOOLGATE_WS_MAX_CONNECTIONS_PER_KEY;
    if (open >= max) {
      ctx.extra.socket.close(TRY_AGAIN_LATER, `at most ${max} connections per API key (TOOLGATE_WS_MAX_CONNECTIONS_PER_KEY)`);
      return false;
    }
    this.openPerPrincipal.set(principal, open + 1);
    this.principalOf.set(ctx, principal);
    return true;
  }

  private release(ctx: WsContext): void {
    const principal = this.principalOf.get(ctx);
    if (principal === undefined) return;
    this.principalOf.delete(ctx);
    const open = (this.openPerPrincipal.get(principal) ?? 1) - 1;
    if (open > 0) this.openPerPrincipal.set(principal, open);
    else this.openPerPrincipal.delete(principal);
  }

  /** Parses and validates like Apollo over HTTP (same codes), then admits the operation through the shared limits. */
  private async subscribe(ctx: WsContext, payload: SubscribePayload): Promise<ExecutionArgs | readonly GraphQLError[]> {
    const schema = this.schemaHost.schema;
    let document: ExecutionArgs['document'];
    try {
      document = parse(payload.query);
    } catch (error) {
      return [new GraphQLError((error as Error).message, { extensions: { code: 'GRAPHQL_PARSE_FAILED' } })];
    }
    const rules = this.config.gateway.GRAPHQL_INTROSPECTION ? specifiedRules : [...specifiedRules, NoSchemaIntrospectionCustomRule];
    const invalid = validate(schema, document, rules);
    if (invalid.length > 0) return invalid.map((error) => new GraphQLError(error.message, { nodes: error.nodes, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }));
    const operation = getOperationAST(document, payload.operationName);
    if (!operation) return [new GraphQLError('Unable to identify operation', { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })];
    try {
      await this.limits.admit({
        schema,
        document,
        operation,
        operationName: payload.operationName,
        variables: payload.variables,
        authorization: graphqlContext(ctx).req.headers.authorization,
        clientIp: ctx.extra.request.socket.remoteAddress ?? 'unknown',
      });
    } catch (error) {
      if (error instanceof GraphQLError) return [error];
      throw error;
    }
    return { schema, document, operationName: payload.operationName, variableValues: payload.variables };
  }
}

function refuseUpgrade(socket: Duplex, status: number, reason: string, body = reason): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
}
