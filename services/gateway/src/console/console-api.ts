import { serviceRoutes } from '@pps/shared/contract';
import type { GatewayDeps } from '../deps';
import { forwardedPrefixes } from '../proxy/routing';

/** An answer of the API as the console reads it: the status and the parsed JSON document. */
export type ApiAnswer<T = unknown> = { status: number; body: T & { errors?: { code: string; detail: string }[] } };

/**
 * The platform's API, called by the console for the signed-in account as the gateway forwards a client's call: the
 * same routes, use cases and ownership rules (another account's id is a 404 here as there), in this process or over
 * HTTP, with the account's sandbox clock. The console keeps no second way into the services' data.
 */
export function consoleApi(
  deps: Pick<GatewayDeps, 'config' | 'upstreams'>,
  account: { id: string; clockOffsetSeconds: number },
  requestId: string,
  /** Who calls, as the services see the caller's app: the console, or another of the gateway's pages. */
  appId = 'console',
) {
  const prefixes = forwardedPrefixes(serviceRoutes).filter((prefix) => !prefix.asOperator);
  async function send(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    options: { body?: unknown; idempotencyKey?: string; accept?: string } = {},
  ): Promise<Response> {
    const url = new URL(path, deps.config.PUBLIC_BASE_URL);
    const prefix = prefixes.find(
      (candidate) => url.pathname === candidate.prefix || url.pathname.startsWith(`${candidate.prefix}/`),
    );
    if (!prefix) throw new Error(`the console has no service for ${url.pathname}`);
    const headers = new Headers({ 'x-request-id': requestId, accept: options.accept ?? 'application/json' });
    if (options.idempotencyKey) headers.set('idempotency-key', options.idempotencyKey);
    let body: Uint8Array<ArrayBuffer> | undefined;
    if (options.body !== undefined) {
      headers.set('content-type', 'application/json');
      body = new TextEncoder().encode(JSON.stringify(options.body)) as Uint8Array<ArrayBuffer>;
    }
    return deps.upstreams[prefix.service].fetch({
      url,
      method,
      headers,
      body,
      caller: { accountId: account.id, appId, clockOffsetSeconds: account.clockOffsetSeconds, requestId },
    });
  }
  async function call<T = unknown>(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    options: { body?: unknown; idempotencyKey?: string } = {},
  ): Promise<ApiAnswer<T>> {
    const response = await send(method, path, options);
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }
  return {
    get: <T = unknown>(path: string) => call<T>('GET', path),
    post: <T = unknown>(path: string, body: unknown, idempotencyKey?: string) =>
      call<T>('POST', path, { body, idempotencyKey }),
    put: <T = unknown>(path: string, body: unknown) => call<T>('PUT', path, { body }),
    /** A GET answered as CSV (`Accept: text/csv`, where the API offers it): the status and the text as it came. */
    csv: async (path: string) => {
      const response = await send('GET', path, { accept: 'text/csv' });
      return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
    },
  };
}

export type ConsoleApi = ReturnType<typeof consoleApi>;

/** What the API said was wrong, one detail per error; none for an answer that succeeded. */
export const refusalsOf = (answer: ApiAnswer): string[] =>
  answer.status < 300 ? [] : (answer.body?.errors ?? []).map((error) => error.detail);
