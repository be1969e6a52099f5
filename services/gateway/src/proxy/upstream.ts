import { attachCaller, type CallerContext, signInternal } from '@pps/shared/http';
import { type Dispatcher, Pool } from 'undici';

/** A call the gateway forwards: the service's path (and query), the method, the headers, the body, and the caller. */
export type Forwarded = {
  url: URL;
  method: string;
  headers: Headers;
  body: Uint8Array<ArrayBuffer> | undefined;
  /** Who the gateway vouches for: attached to the Request in this process, signed (HMAC) over HTTP. */
  caller: CallerContext;
};

/** Where the gateway sends a service's requests: its Hono app in this process, or its URL over HTTP. */
export type Upstream = { name: string; fetch: (request: Forwarded) => Promise<Response> };

export const inProcessUpstream = (
  name: string,
  app: { fetch: (request: Request) => Response | Promise<Response> },
): Upstream => ({
  name,
  fetch: async (request) => app.fetch(attachCaller(inProcessRequest(request), request.caller)),
});

/**
 * Over HTTP, through a keep-alive pool of undici (the library under Node's fetch, called without fetch's web
 * streams, signals and Request/Response objects per call: the multi-process hop's main cost, docs/decisions.md,
 * "Performance of the payment path"). Responses are small JSON documents, read whole.
 */
export const httpUpstream = (
  name: string,
  baseUrl: string,
  secret: string,
): Upstream & { close: () => Promise<void> } => {
  const base = new URL(baseUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  const pool = new Pool(base.origin, { connections: 128, keepAliveTimeout: 30_000 });
  return {
    name,
    fetch: async ({ url, method, headers, body, caller }) => {
      const outgoing: Record<string, string> = {};
      headers.forEach((value, key) => {
        outgoing[key] = value;
      });
      // The signature covers the path as sent (percent-encoding kept): the bytes the service will see.
      Object.assign(outgoing, signInternal(secret, caller, method, url.pathname));
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
      // As bytes, not the ArrayBuffer: @hono/node-server writes a Response made with bytes (or text) to the socket as
      // they are, and the request log reads them there; one made with an ArrayBuffer it turns into a stream first.
      return new Response(empty ? null : new Uint8Array(bytes), { status: response.statusCode, headers: incoming });
    },
    close: () => pool.close(),
  };
};

const decoder = new TextDecoder();

/**
 * The Request a service app in this process is handed. Its url, method, headers and body (as text, JSON or bytes:
 * what Hono reads) are plain fields; anything else (a body stream, the signal, clone) builds a full Request on first
 * use. A full Request per call costs undici a body stream, an AbortSignal and their transferable wrappers: about a
 * tenth of a payment's CPU (docs/decisions.md, "Performance of the payment path"). The body's length is declared,
 * as over HTTP.
 */
class InProcessRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Headers;
  readonly #forwarded: Forwarded;
  #full: Request | undefined;

  constructor(forwarded: Forwarded) {
    this.#forwarded = forwarded;
    this.url = forwarded.url.href;
    this.method = forwarded.method;
    this.headers = forwarded.headers;
    if (forwarded.body) this.headers.set('content-length', String(forwarded.body.byteLength));
  }

  async text() {
    const { body } = this.#forwarded;
    return body ? decoder.decode(body) : '';
  }

  async json() {
    return JSON.parse(await this.text());
  }

  async arrayBuffer() {
    const { body } = this.#forwarded;
    return body ? body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) : new ArrayBuffer(0);
  }

  /** The full Request, built once, for what an app reads beyond the fields above. */
  full(): Request {
    const { url, method, headers, body } = this.#forwarded;
    this.#full ??= new Request(url, { method, headers, body });
    return this.#full;
  }
}
// A Request to `instanceof` and to every property an app might read; those not above come from the full one.
Object.setPrototypeOf(InProcessRequest.prototype, Request.prototype);
for (const field of ['body', 'bodyUsed', 'signal', 'cache', 'credentials', 'destination', 'integrity', 'mode']) {
  Object.defineProperty(InProcessRequest.prototype, field, {
    get(this: InProcessRequest) {
      return this.full()[field as keyof Request];
    },
  });
}
for (const method of ['blob', 'formData', 'clone']) {
  Object.defineProperty(InProcessRequest.prototype, method, {
    value(this: InProcessRequest) {
      const full = this.full();
      return (full[method as keyof Request] as () => unknown).call(full);
    },
  });
}

const inProcessRequest = (forwarded: Forwarded) => new InProcessRequest(forwarded) as unknown as Request;
