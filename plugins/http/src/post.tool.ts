import { defineTool } from '@toolgate/sdk';
import { ALLOWLIST_NOTE, COMMON_INPUT_PROPERTIES, type HttpResponse, RESPONSE_SCHEMA, request } from './http.kit';

export interface PostArgs {
  url: string;
  body: string;
  contentType?: string;
  headers?: Record<string, string>;
  maxBytes?: number;
  timeoutMs?: number;
}

export const postTool = defineTool<PostArgs, HttpResponse>({
  name: 'post',
  title: 'Send an HTTP POST request',
  description:
    'Sends data to a URL with an HTTP POST (JSON by default, or any content type such as form data or plain text) and returns the status code, ' +
    'selected headers, content type and response body: submit a form, call a webhook, create a record through a REST API. ' +
    `It can change data on the remote service, so it is not retried automatically. ${ALLOWLIST_NOTE} Only http and https URLs; every redirect is checked ` +
    'the same way; the response is cut at maxBytes. Do NOT use it just to read a page or API (use http/fetch) or to save a ' +
    'file locally (use files/write).',
  category: ['web', 'network'],
  tags: ['http', 'post', 'webhook', 'rest api', 'submit', 'send json', 'api call'],
  inputSchema: {
    type: 'object',
    properties: {
      url: { type: 'string', format: 'uri', maxLength: 2048, description: 'Absolute http(s) URL on an allowed host.' },
      body: { type: 'string', maxLength: 1048576, description: 'Request body, e.g. a JSON document as text.' },
      contentType: { type: 'string', maxLength: 200, default: 'application/json', description: 'Content-Type of the body (default application/json).' },
      ...COMMON_INPUT_PROPERTIES,
    },
    required: ['url', 'body'],
    additionalProperties: false,
  },
  outputSchema: RESPONSE_SCHEMA,
  examples: [
    {
      query: 'Post {"text": "deploy finished"} to the webhook https://hooks.example.com/notify',
      arguments: { url: 'https://hooks.example.com/notify', body: '{"text": "deploy finished"}' },
    },
    {
      query: 'Submit the form name=Ann&city=Oslo to https://forms.example.com/signup',
      arguments: { url: 'https://forms.example.com/signup', body: 'name=Ann&city=Oslo', contentType: 'application/x-www-form-urlencoded' },
    },
  ],
  permissions: { scopes: ['net:fetch'], risk: 'write' },
  limits: { timeoutMs: 35_000, maxConcurrency: 4, retries: 0, idempotent: false },
  run(args, ctx) {
    const headers = { ...args.headers, 'Content-Type': args.contentType ?? 'application/json' };
    return request({ url: args.url, method: 'POST', headers, body: args.body, maxBytes: args.maxBytes, timeoutMs: args.timeoutMs }, ctx);
  },
});
