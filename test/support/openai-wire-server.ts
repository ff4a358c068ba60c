import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local HTTP server that speaks the OpenAI wire format and replays scripted replies, so clients are
 * tested through the real `openai` package, its retries and its parsing, not by mocking it.
 */

/** One scripted HTTP reply. `body` is JSON-encoded; `raw` is sent as is (for malformed bodies). */
export interface ScriptedReply {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  raw?: string;
  /** Wait before answering (timeouts); the wait ends early when the client disconnects. */
  delayMs?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** A reply, or a function of the request that makes one (e.g. embeddings computed from the input). */
export type ScriptStep = ScriptedReply | ((request: RecordedRequest) => ScriptedReply);

export interface OpenAIWireServer {
  /** Base URL for the client, ending in `/v1`. */
  baseURL: string;
  requests: RecordedRequest[];
  /** Appends replies for a path such as `/v1/chat/completions`. */
  script(path: string, ...steps: ScriptStep[]): void;
  /** A reply used for a path once its script is exhausted (otherwise the server answers 599). */
  fallback(path: string, step: ScriptStep): void;
  /** Replies still queued per path: a test can assert all were consumed. */
  pending(): Record<string, number>;
  close(): Promise<void>;
}

export async function startOpenAIWireServer(): Promise<OpenAIWireServer> {
  const queues = new Map<string, ScriptStep[]>();
  const fallbacks = new Map<string, ScriptStep>();
  const requests: RecordedRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // Recorded as text: a client sending malformed JSON is what a test wants to see.
    }
    const path = (req.url ?? '/').split('?')[0];
    const request: RecordedRequest = { method: req.method ?? 'GET', path, headers: req.headers, body };
    requests.push(request);
    const step = queues.get(path)?.shift() ?? fallbacks.get(path);
    if (!step) {
      res.writeHead(599, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `script exhausted for ${path}`, type: 'test_script' } }));
      return;
    }
    const reply = typeof step === 'function' ? step(request) : step;
    if (reply.delayMs) {
      const closed = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), reply.delayMs);
        res.on('close', () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      if (closed) return;
    }
    const payload = reply.raw ?? JSON.stringify(reply.body ?? {});
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
    res.end(payload);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res.writeHead(500);
      res.end(String(error));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    script(path, ...steps) {
      queues.set(path, [...(queues.get(path) ?? []), ...steps]);
    },
    fallback(path, step) {
      fallbacks.set(path, step);
    },
    pending() {
      return Object.fromEntries([...queues].map(([path, queue]) => [path, queue.length]));
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

let completionCounter = 0;

/** A `chat.completion` body with either text content or tool calls, and token usage. */
export function chatCompletion(message: {
  content?: string | null;
  toolCalls?: { name: string; arguments: string | Record<string, unknown> }[];
  finishReason?: 'stop' | 'tool_calls' | 'length';
  usage?: { prompt_tokens: number; completion_tokens: number };
  model?: string;
}): ScriptedReply {
  completionCounter += 1;
  const toolCalls = message.toolCalls?.map((call, i) => ({
    id: `call_${completionCounter}_${i}`,
    type: 'function',
    function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) },
  }));
  const usage = message.usage ?? { prompt_tokens: 100, completion_tokens: 20 };
  return {
    body: {
      id: `chatcmpl-${completionCounter}`,
      object: 'chat.completion',
      created: 1_764_460_800,
      model: message.model ?? 'scripted-model',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: message.content ?? null, ...(toolCalls?.length ? { tool_calls: toolCalls } : {}), refusal: null },
          finish_reason: message.finishReason ?? (toolCalls?.length ? 'tool_calls' : 'stop'),
          logprobs: null,
        },
      ],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    },
  };
}

/** An OpenAI-style error reply (429 / 5xx / 400), optionally with `Retry-After`. */
export function errorReply(status: number, message: string, retryAfterSeconds?: number): ScriptedReply {
  return {
    status,
    headers: retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) },
    body: { error: { message, type: status === 429 ? 'rate_limit_exceeded' : 'server_error', code: null, param: null } },
  };
}

/** An embeddings reply computed by `vectorOf` for each input of the request. */
export function embeddingsFrom(vectorOf: (text: string) => number[], model = 'scripted-embedding'): ScriptStep {
  return (request) => {
    const input = (request.body as { input: string | string[] }).input;
    const texts = Array.isArray(input) ? input : [input];
    return {
      body: {
        object: 'list',
        model,
        data: texts.map((text, index) => ({ object: 'embedding', index, embedding: vectorOf(text) })),
        usage: { prompt_tokens: texts.length, total_tokens: texts.length },
      },
    };
  };
}
