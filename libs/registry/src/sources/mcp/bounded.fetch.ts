import { ErrorCode, ToolgateError } from '@toolgate/sdk';

/**
 * `fetch` for an MCP server's Streamable HTTP transport whose answers are bounded: a JSON body, or
 * one event of an SSE stream, larger than `maxMessageBytes` fails the read (OUTPUT_TOO_LARGE) before
 * it is buffered, so an untrusted server cannot make the gateway hold an unbounded message. An SSE
 * stream as such may run for hours; only each event is bounded.
 */
export function boundedFetch(maxMessageBytes: number, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (!response.body) return response;
    const declared = Number(response.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > maxMessageBytes) {
      await response.body.cancel();
      throw tooLarge(maxMessageBytes);
    }
    const sse = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    let size = 0;
    let previousByte = -1;
    let atLineStart = true;
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        let over = false;
        if (!sse) {
          size += chunk.byteLength;
          over = size > maxMessageBytes;
        } else {
          // An event ends at a blank line; lines end in LF, CRLF or CR (servers on sse-starlette send CRLF).
          // Checked byte by byte: an oversized event whose end is in the same chunk must not pass.
          for (const byte of chunk) {
            const crlf = byte === LF && previousByte === CR;
            const lineEnd = byte === LF || byte === CR;
            if (lineEnd && !crlf && atLineStart) size = 0;
            else size += 1;
            if (!crlf) atLineStart = lineEnd;
            previousByte = byte;
            if (size > maxMessageBytes) {
              over = true;
              break;
            }
          }
        }
        if (over) controller.error(tooLarge(maxMessageBytes));
        else controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(counter), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

const LF = 10;
const CR = 13;

const tooLarge = (limit: number) => new ToolgateError(ErrorCode.OUTPUT_TOO_LARGE, `the MCP server sent a message larger than ${limit} bytes (TOOLGATE_MCP_MAX_MESSAGE_BYTES)`);
