import { Transform, type TransformCallback } from 'node:stream';
import { INVALID_REQUEST, isJSONRPCNotification, isJSONRPCRequest, isJSONRPCResponse, PARSE_ERROR } from '@modelcontextprotocol/server';
import { ErrorCode } from '@toolgate/sdk';
import { requestIdOf, SERVER_ERROR } from './mcp-http.errors';

type JsonRpcId = string | number | null;
export interface StdioRefusal {
  jsonrpc: '2.0';
  id: JsonRpcId;
  error: { code: number; message: string; data: Record<string, unknown> };
}

const NEWLINE = 0x0a;
/** How far into an oversized line its id is looked for: clients write `"id"` near the start. */
const ID_SCAN_BYTES = 4096;

/**
 * Sits between stdin and the SDK's stdio transport, which would close the whole connection on one
 * line over its buffer bound and silently drop a line that is not JSON-RPC. Here each refused line
 * is answered with a JSON-RPC error (its id when it can be read, so the client's request does not
 * hang) and the connection goes on: over `maxBytes` → -32000 naming TOOLGATE_MAX_BODY_BYTES (the
 * bytes are dropped as they arrive, never buffered whole); not JSON → -32700; JSON that is not a
 * JSON-RPC 2.0 message → -32600. Only messages the transport accepts are passed on, one per line.
 */
export class StdioLineGate extends Transform {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Inside a line already over the bound: its head (for the id) and its size so far. */
  private oversized: { head: Buffer; bytes: number } | undefined;

  constructor(
    private readonly maxBytes: number,
    private readonly refuse: (refusal: StdioRefusal) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      this.absorb(chunk.subarray(start, end));
      if (newline === -1) break;
      this.endLine();
      start = newline + 1;
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.pendingBytes > 0 || this.oversized) this.endLine();
    done();
  }

  private absorb(part: Buffer): void {
    if (part.length === 0) return;
    if (this.oversized) {
      this.oversized.bytes += part.length;
      if (this.oversized.head.length < ID_SCAN_BYTES) this.oversized.head = Buffer.concat([this.oversized.head, part.subarray(0, ID_SCAN_BYTES)]);
      return;
    }
    this.pending.push(part);
    this.pendingBytes += part.length;
    if (this.pendingBytes > this.maxBytes) {
      const whole = Buffer.concat(this.pending);
      this.oversized = { head: whole.subarray(0, ID_SCAN_BYTES), bytes: whole.length };
      this.pending = [];
      this.pendingBytes = 0;
    }
  }

  private endLine(): void {
    if (this.oversized) {
      const { head, bytes } = this.oversized;
      this.oversized = undefined;
      const message = `message of ${bytes} bytes is over the limit of ${this.maxBytes} bytes (TOOLGATE_MAX_BODY_BYTES)`;
      this.refuse(refusal(topLevelId(head.toString('utf8')), SERVER_ERROR, message, { code: ErrorCode.INVALID_ARGUMENTS, maxBytes: this.maxBytes }));
      return;
    }
    const line = Buffer.concat(this.pending).toString('utf8').replace(/\r$/, '');
    this.pending = [];
    this.pendingBytes = 0;
    if (line.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      this.refuse(refusal(null, PARSE_ERROR, 'Parse error: the line is not valid JSON', { code: ErrorCode.INVALID_ARGUMENTS }));
      return;
    }
    if (isJSONRPCRequest(parsed) || isJSONRPCNotification(parsed) || isJSONRPCResponse(parsed)) {
      this.push(`${line}\n`);
      return;
    }
    const message = Array.isArray(parsed) ? 'Invalid Request: batches are not supported, send one JSON-RPC message per line' : 'Invalid Request: not a JSON-RPC 2.0 request, notification or response';
    this.refuse(refusal(requestIdOf(parsed), INVALID_REQUEST, message, { code: ErrorCode.INVALID_ARGUMENTS }));
  }
}

function refusal(id: JsonRpcId, code: number, message: string, data: Record<string, unknown>): StdioRefusal {
  return { jsonrpc: '2.0', id, error: { code, message, data } };
}

/**
 * The `id` member of the outermost object in the head of a line too big to parse, or null. Only a
 * key at depth 1 counts: an `"id"` inside params must never be mistaken for the request's.
 */
export function topLevelId(head: string): JsonRpcId {
  let depth = 0;
  let i = 0;
  while (i < head.length) {
    const c = head[i];
    if (c === '{' || c === '[') depth += 1;
    else if (c === '}' || c === ']') depth -= 1;
    else if (c === '"') {
      const close = stringEnd(head, i);
      if (close === -1) return null;
      if (depth === 1 && head.slice(i, close + 1) === '"id"') {
        const value = /^\s*:\s*(-?\d+(?:\.\d+)?|"(?:[^"\\]|\\.)*")\s*[,}]/.exec(head.slice(close + 1));
        if (value) return JSON.parse(value[1]) as string | number;
      }
      i = close;
    }
    i += 1;
  }
  return null;
}

/** Index of the quote that closes the string opening at `open`, or -1 when the head ends first. */
function stringEnd(text: string, open: number): number {
  for (let i = open + 1; i < text.length; i += 1) {
    if (text[i] === '\\') i += 1;
    else if (text[i] === '"') return i;
  }
  return -1;
}
