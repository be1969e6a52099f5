import { type Dispatcher, Pool } from 'undici';

/** A call the gateway forwards: the service's path (and query), the method, the headers it signed, the body. */
export type Forwarded = { url: URL; method: string; headers: Headers; body: Uint8Array<ArrayBuffer> | undefined };

/** Where the gateway sends a service's requests: its Hono app in this process, or its URL over HTTP. */
export type Upstream = { name: string; fetch: (request: Forwarded) => Promise<Response> };

export const inProcessUpstream = (
  name: string,
  app: { fetch: (request: Request) => Response | Promise<Response> },
): Upstream => ({
  name,
  fetch: async (request) => app.fetch(inProcessRequest(request)),
});

/**
 * Over HTTP, through a keep-alive pool of undici (the library under Node's fetch, called without fetch's web
 * streams, signals and Request/Response objects per call: the multi-process hop's main cost, issue 11). Responses
 * are small JSON documents, read whole.
 */
export const httpUpstream = (name: string, baseUrl: string): Upstream & { close: () => Promise<void> } => {
  const base = new URL(baseUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  const pool = new Pool(base.origin, { connections: 128, keepAliveTimeout: 30_000 });
  return {
    name,
    fetch: async ({ url, method, headers, body }) => {
      const outgoing: Record<string, string> = {};
      headers.forEach((value, key) => {
        outgoing[key] = value;
      });
      const response = await pool.request({
        path: `${prefix}${url.pathname}${url.search}`,
        method: method as Dispatcher.HttpMethod,
        headers: outgoing,
        body,
      });
      const incoming = new Headers();
      for (const [key, value] of Object.entries(response.headers)) {
        if (value === undefined) continue;
        for (const item of Array.isArray(value) ? value : [value]) incoming.append(key, item);
      }
      const bytes = await response.body.arrayBuffer();
      const empty = response.statusCode === 204 || response.statusCode === 304 || method === 'HEAD';
      return new Response(empty ? null : bytes, { status: response.statusCode, headers: incoming });
    },
    close: () => pool.close(),
  };
};

const decoder = new TextDecoder();
/** What a Request has that an app might read and this one only builds on demand (from a full Request). */
const LAZY_FIELDS = ['body', 'bodyUsed', 'signal', 'cache', 'credentials', 'destination', 'integrity', 'mode'];
const LAZY_METHODS = ['blob', 'formData', 'clone'];

/**
 * The Request a service app in this process is handed. Its url, method, headers and body (as text, JSON or bytes:
 * what Hono reads) are plain fields; anything else (a body stream, the signal, clone) builds a full Request on first
 * use. A full Request per call costs undici a body stream, an AbortSignal and their transferable wrappers: about a
 * tenth of a payment's CPU (issue 11). The body's length is declared, as over HTTP.
 */
function inProcessRequest({ url, method, headers, body }: Forwarded): Request {
  if (body) headers.set('content-length', String(body.byteLength));
  let full: Request | undefined;
  const request = () => {
    full ??= new Request(url, { method, headers, body });
    return full;
  };
  const text = async () => (body ? decoder.decode(body) : '');
  const fields: PropertyDescriptorMap = {
    url: { value: url.href },
    method: { value: method },
    headers: { value: headers },
    text: { value: text },
    json: { value: async () => JSON.parse(await text()) },
    arrayBuffer: {
      value: async () =>
        body ? body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) : new ArrayBuffer(0),
    },
  };
  for (const field of LAZY_FIELDS) {
    fields[field] = { get: () => request()[field as keyof Request] };
  }
  for (const name of LAZY_METHODS) {
    fields[name] = { value: () => (request()[name as keyof Request] as () => unknown).call(full) };
  }
  return Object.create(Request.prototype, fields);
}
