import { PARSE_ERROR } from '@modelcontextprotocol/server';
import { ErrorCode } from '@toolgate/sdk';
import type { ErrorRequestHandler, Response } from 'express';

/** JSON-RPC's implementation-defined server error: what the transport refuses before any MCP method runs. */
export const SERVER_ERROR = -32000;

/** The JSON-RPC id of a single request body, so a refusal answers that request; null otherwise. */
export function requestIdOf(body: unknown): string | number | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const { id } = body as { id?: unknown };
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** Answers with a JSON-RPC error; `data.code` is the Toolgate code, as GraphQL's `extensions.code`. */
export function sendJsonRpcError(res: Response, status: number, body: unknown, code: number, message: string, data: Record<string, unknown>): void {
  res.status(status).json({ jsonrpc: '2.0', id: requestIdOf(body), error: { code, message, data } });
}

/**
 * The shared JSON body parser's refusals on /mcp, as JSON-RPC errors (the GraphQL-shaped ones would
 * mean nothing to an MCP client): a body over TOOLGATE_MAX_BODY_BYTES is 413, one that is not JSON
 * is 400 with a parse error.
 */
export function mcpBodyErrors(maxBytes: number): ErrorRequestHandler {
  return (error: { type?: string; length?: number }, _req, res, next) => {
    if (error.type === 'entity.too.large') {
      const message = `request body${error.length ? ` of ${error.length} bytes` : ''} is over the limit of ${maxBytes} bytes (TOOLGATE_MAX_BODY_BYTES)`;
      sendJsonRpcError(res, 413, undefined, SERVER_ERROR, message, { code: ErrorCode.INVALID_ARGUMENTS, maxBytes });
    } else if (error.type === 'entity.parse.failed') {
      sendJsonRpcError(res, 400, undefined, PARSE_ERROR, 'Parse error: request body is not valid JSON', { code: ErrorCode.INVALID_ARGUMENTS });
    } else {
      next(error);
    }
  };
}
