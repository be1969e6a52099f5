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

/** Over HTTP: Node's fetch keeps connections alive between calls. */
export const httpUpstream = (name: string, baseUrl: string): Upstream => {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    name,
    fetch: ({ url, method, headers, body }) =>
      fetch(`${base}${url.pathname}${url.search}`, { method, headers, body, redirect: 'manual' }),
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
