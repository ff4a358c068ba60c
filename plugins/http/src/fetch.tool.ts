import { defineTool } from '@toolgate/sdk';
import { ALLOWLIST_NOTE, COMMON_INPUT_PROPERTIES, type HttpResponse, MAX_REDIRECTS, RESPONSE_SCHEMA, request } from './http.kit';

export interface FetchArgs {
  url: string;
  method?: 'GET' | 'HEAD';
  headers?: Record<string, string>;
  maxBytes?: number;
  timeoutMs?: number;
}

export const fetchTool = defineTool<FetchArgs, HttpResponse>({
  name: 'fetch',
  title: 'Fetch a URL (HTTP GET/HEAD)',
  description:
    'Downloads a web page, file or REST API response with an HTTP GET (or checks it with HEAD) and returns the status code, selected headers, ' +
    'content type and body (text, or base64 for binary content), following up to ' +
    `${MAX_REDIRECTS} redirects. Use it to read a JSON API, get the raw content of a URL, or check whether a link works. ${ALLOWLIST_NOTE} ` +
    'Only http and https URLs; every redirect is checked the same way; the body is cut at maxBytes (default 1 MiB) and the call times ' +
    'out after timeoutMs. Do NOT use it to send data or call an API that changes something (use http/post), to read files the user saved ' +
    '(use files/read), or for general web search (it only fetches a URL you already know).',
  category: ['web', 'network'],
  tags: ['http', 'get', 'fetch', 'download', 'url', 'web page', 'rest api', 'json api', 'head request'],
  inputSchema: {
    type: 'object',
    properties: {
      url: { type: 'string', format: 'uri', maxLength: 2048, description: 'Absolute http(s) URL on an allowed host, e.g. https://api.example.com/items?page=2.' },
      method: { type: 'string', enum: ['GET', 'HEAD'], default: 'GET', description: 'GET (default) returns the body; HEAD only status and headers.' },
      ...COMMON_INPUT_PROPERTIES,
    },
    required: ['url'],
    additionalProperties: false,
  },
  outputSchema: RESPONSE_SCHEMA,
  examples: [
    { query: 'Get the JSON from https://api.example.com/v1/status', arguments: { url: 'https://api.example.com/v1/status', headers: { Accept: 'application/json' } } },
    { query: 'Is https://docs.example.com/guide still online?', arguments: { url: 'https://docs.example.com/guide', method: 'HEAD', timeoutMs: 5000 } },
  ],
  permissions: { scopes: ['net:fetch'], risk: 'read' },
  limits: { timeoutMs: 35_000, maxConcurrency: 8, retries: 1, idempotent: true },
  run(args, ctx) {
    return request({ ...args, method: args.method ?? 'GET' }, ctx);
  },
});
