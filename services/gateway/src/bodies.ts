import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';

/**
 * The request's body as bytes, read once (`requestBody`, where the request log finds it too). Served by Node with a
 * declared length (already judged against the limit) and not yet read, it is read straight off the socket's message:
 * building the web Request around it costs a stream per call. Otherwise (a streamed body counted by the size guard,
 * or no Node message behind it) through the Request.
 */
export async function requestBytes(c: Context): Promise<Uint8Array<ArrayBuffer>> {
  const read = c.get('requestBody') as Uint8Array<ArrayBuffer> | undefined;
  if (read) return read;
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  let bytes: Uint8Array<ArrayBuffer>;
  if (
    incoming &&
    !incoming.readableDidRead &&
    c.req.header('content-length') !== undefined &&
    c.req.header('transfer-encoding') === undefined
  ) {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    // Node's buffers sit on plain ArrayBuffers.
    bytes = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)) as Uint8Array<ArrayBuffer>;
  } else {
    bytes = new Uint8Array(await c.req.arrayBuffer());
  }
  c.set('requestBody', bytes);
  return bytes;
}

/**
 * Puts `bytes` (and their `text`) in the place of the request's body for whatever reads it next: `forward`, which
 * sends `requestBody`, and Hono's readers (`c.req.json()` of the gateway's own routes), which read its cache.
 */
export function replaceBody(c: Context, bytes: Uint8Array<ArrayBuffer>, text: string): void {
  c.set('requestBody', bytes);
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  // Hono's cache holds what its readers resolve to; its type names the values.
  c.req.bodyCache = {
    text: Promise.resolve(text),
    arrayBuffer: Promise.resolve(buffer),
  } as unknown as typeof c.req.bodyCache;
}

/**
 * @hono/node-server answers with a Response of its own that keeps the body it was made with (a string, or bytes)
 * under a symbol described `cache`, and writes that to the socket as it is; the symbol is not exported, so it is
 * found on the first such Response. Read there, the body costs nothing and the Response stays as light as it was
 * (reading it through `clone()` or `text()` would build the full Response its lightness avoids). Undefined for any
 * other Response (one with a stream body; `app.request()` in tests), which is read the usual way.
 */
let cacheSymbol: symbol | undefined;

export function keptAnswerBody(response: Response): string | Uint8Array | undefined {
  cacheSymbol ??= Object.getOwnPropertySymbols(response).find((symbol) => symbol.description === 'cache');
  const cached = cacheSymbol && (response as unknown as Record<symbol, unknown[] | undefined>)[cacheSymbol];
  const body = cached?.[1];
  return typeof body === 'string' || body instanceof Uint8Array ? body : undefined;
}
