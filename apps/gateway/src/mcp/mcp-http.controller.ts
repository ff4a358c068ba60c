import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { type AuthInfo, createMcpHandler, isLegacyRequest, type McpHttpHandler } from '@modelcontextprotocol/server';
import { All, Controller, Inject, Logger, type OnApplicationShutdown, Req, Res } from '@nestjs/common';
import { AccessPolicyService, type Principal } from '@toolgate/registry';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import type { Request as ExpressRequest, Response as ExpressResponse } from 'express';
import { bearerToken } from '../auth/principal.guard';
import { APP_CONFIG, type AppConfig } from '../config/app.config';
import { OperationLimits } from '../graphql/operation-limits.service';
import { SERVER_ERROR, sendJsonRpcError } from './mcp-http.errors';
import { mcpRequestCost } from './mcp-request.costs';
import { McpServerFactory } from './mcp-server.factory';

type JsonRpcMessage = { id?: unknown; method?: unknown; params?: { requestId?: unknown } };

const messagesOf = (body: unknown): JsonRpcMessage[] => (Array.isArray(body) ? body : [body]).filter((m): m is JsonRpcMessage => !!m && typeof m === 'object');

/** The Express request as the web-standard Request the SDK serves; a body the JSON parser already read is passed as `parsedBody`. */
function webRequest(req: ExpressRequest, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === 'content-length') continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const url = `http://${req.headers.host ?? 'localhost'}${req.originalUrl}`;
  // A body the JSON parser left alone (another content type) goes to the SDK as is: it answers 415.
  const unread = req.body === undefined && req.method !== 'GET' && req.method !== 'HEAD';
  return new Request(url, { method: req.method, headers, signal, ...(unread ? { body: Readable.toWeb(req) as ReadableStream, duplex: 'half' } : {}) } as RequestInit);
}

async function send(response: Response, res: ExpressResponse): Promise<void> {
  res.status(response.status);
  response.headers.forEach((value, name) => {
    res.setHeader(name, value);
  });
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  // A client that hangs up ends the pipe early; its exchange was aborted through the request's signal.
  await pipeline(Readable.fromWeb(response.body as NodeReadableStream), res).catch(() => undefined);
}

/**
 * MCP over Streamable HTTP at /mcp, on the gateway's own port, both protocol eras (2026-07-28 per
 * request; 2025-11-25 stateless, SDK's fallback): the API key of `Authorization: Bearer` (or the local
 * principal without keys, as GraphQL), the caller's one rate budget and the shared body limit, then a
 * server built for that principal answers.
 */
@Controller('mcp')
export class McpHttpController implements OnApplicationShutdown {
  private readonly logger = new Logger('Mcp');
  private readonly handler: McpHttpHandler;
  private readonly maxBodyBytes: number;
  /**
   * 2025-era calls in flight, by caller and JSON-RPC id: stateless serving gives each POST its own
   * server, so a `notifications/cancelled` (its own POST) aborts the call here.
   */
  private readonly legacyCalls = new Map<string, Set<AbortController>>();

  constructor(
    servers: McpServerFactory,
    private readonly access: AccessPolicyService,
    private readonly limits: OperationLimits,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.maxBodyBytes = config.gateway.TOOLGATE_MAX_BODY_BYTES;
    this.handler = createMcpHandler(({ authInfo }) => servers.create(authInfo?.extra?.principal as Principal), {
      maxRequestBodySize: this.maxBodyBytes,
      onerror: (error) => this.logger.debug({ err: error }, 'MCP request refused'),
    });
  }

  @All()
  async serve(@Req() req: ExpressRequest, @Res() res: ExpressResponse): Promise<void> {
    const clientIp = req.socket.remoteAddress ?? 'unknown';
    const cost = mcpRequestCost(req.body, this.limits.costContext);
    // Charged before the key is checked: a key that does not authenticate spends its address's budget
    // (as over GraphQL), so guessing keys is rate limited too.
    const refused = await this.limits.charge(req.headers.authorization, clientIp, cost);
    if (refused) {
      res.setHeader('Retry-After', String(refused.retryAfterSeconds));
      return sendJsonRpcError(res, 429, req.body, SERVER_ERROR, `rate limit reached: retry in ${refused.retryAfterSeconds} s`, {
        code: ErrorCode.RATE_LIMITED,
        retryAfterSeconds: refused.retryAfterSeconds,
        cost,
      });
    }
    let principal: Principal;
    try {
      principal = this.access.authenticate(bearerToken(req.headers.authorization));
    } catch (error) {
      const message = ToolgateError.is(error) ? error.message : 'unauthenticated';
      const challenge = bearerToken(req.headers.authorization) ? 'Bearer realm="toolgate", error="invalid_token"' : 'Bearer realm="toolgate"';
      res.setHeader('WWW-Authenticate', challenge);
      return sendJsonRpcError(res, 401, req.body, SERVER_ERROR, message, { code: ErrorCode.UNAUTHENTICATED });
    }

    const abort = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) abort.abort(new ToolgateError(ErrorCode.CANCELLED, 'the client closed the connection'));
    });
    const request = webRequest(req, abort.signal);
    if (req.body !== undefined && (await isLegacyRequest(request, req.body, { maxRequestBodySize: this.maxBodyBytes }))) {
      this.trackLegacy(this.limits.principalKey(req.headers.authorization, clientIp), req.body, abort, res);
    }
    const authInfo: AuthInfo = { token: '', clientId: `${principal.tenant}/${principal.subject}`, scopes: principal.roles, extra: { principal } };
    try {
      const response = await this.handler.fetch(request, { authInfo, ...(req.body !== undefined ? { parsedBody: req.body } : {}) });
      await send(response, res);
    } catch (error) {
      this.logger.error({ err: error }, 'MCP request failed');
      if (!res.headersSent) sendJsonRpcError(res, 500, req.body, SERVER_ERROR, 'internal error', { code: ErrorCode.INTERNAL });
      else res.end();
    }
  }

  /** Registers this POST's requests for cancellation until its response ends, and applies the cancellations it carries. */
  private trackLegacy(caller: string, body: unknown, abort: AbortController, res: ExpressResponse): void {
    const keys: string[] = [];
    for (const message of messagesOf(body)) {
      if (message.method === 'notifications/cancelled') {
        for (const call of this.legacyCalls.get(`${caller}\u0000${String(message.params?.requestId)}`) ?? []) {
          call.abort(new ToolgateError(ErrorCode.CANCELLED, 'cancelled by the client (notifications/cancelled)'));
        }
      } else if (typeof message.method === 'string' && (typeof message.id === 'string' || typeof message.id === 'number')) {
        keys.push(`${caller}\u0000${String(message.id)}`);
      }
    }
    if (keys.length === 0) return;
    for (const key of keys) this.legacyCalls.set(key, (this.legacyCalls.get(key) ?? new Set()).add(abort));
    res.once('close', () => {
      for (const key of keys) {
        const calls = this.legacyCalls.get(key);
        calls?.delete(abort);
        if (calls?.size === 0) this.legacyCalls.delete(key);
      }
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.handler.close();
  }
}
