import createFetchClient, { type FetchResponse, type MaybeOptionalInit } from 'openapi-fetch';
import type { HttpMethod, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import { AppTokens } from './auth.js';
import { PpsError } from './errors.js';
import type { paths } from './schema.js';

type Fetch = (input: Request) => Promise<Response>;

/** The API version this client was generated for: sent with every request (`PPS-Version`). */
export const API_VERSION = '2026-11-29';

export type ClientOptions = {
  /** The API's root, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** The account's API key (`sk_test_…`). */
  apiKey: string;
  /** Another API version than the one this client was generated for (`API_VERSION`): its answers may differ. */
  apiVersion?: string;
  /** The app's id (`app_…`). */
  appId: string;
  /**
   * An app key made before. Without one the client makes one on first use; a new key revokes the tokens of the
   * one before it, so several processes of one app should share a key.
   */
  appKey?: string;
  /** Renew the app token this long before it expires (default 5 minutes, or half the token's life if shorter). */
  refreshBeforeMs?: number;
  /** Payment creation's retries: how many (default 4), and the backoff's first and largest waits. */
  retry?: { retries?: number; baseDelayMs?: number; maxDelayMs?: number };
  /** Another `fetch` (tests, proxies); the global one by default. */
  fetch?: Fetch;
};

/** `POST /payments`'s body, every `paymentType`'s. */
export type PaymentBody = NonNullable<paths['/payments']['post']['requestBody']>['content']['application/json'];

type Media = `${string}/${string}`;
type InitParam<Init> =
  RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];
/** What a call resolves with: only ever a success (refusals are thrown), so `data` is always there. */
type Answered<R> = R extends { data?: infer D; response: Response }
  ? { data: Exclude<D, undefined>; response: Response }
  : never;
type Operation<O, Init> = O extends Record<string | number, unknown> ? FetchResponse<O, Init, Media> : never;
/** openapi-fetch's method, typed for a client that throws refusals: the same paths, parameters and bodies. */
type Method<M extends HttpMethod> = <
  Path extends PathsWithMethod<paths, M>,
  Init extends MaybeOptionalInit<paths[Path], M>,
>(
  url: Path,
  ...init: InitParam<Init>
) => Promise<Answered<Operation<paths[Path][M], Init>>>;
type Methods = { GET: Method<'get'>; POST: Method<'post'>; PUT: Method<'put'>; DELETE: Method<'delete'> };

/** Refusals whose request can be sent again as it is: the same requestId can never charge twice. */
const RETRIED_CODES = new Set(['idempotency_key_in_use']);
const retriable = (error: PpsError) =>
  error.status === 0 || error.status === 429 || error.status >= 500 || RETRIED_CODES.has(error.code);

/**
 * A typed client of the API (`@pps/sdk`): every path, parameter and body typed from the OpenAPI document through
 * openapi-fetch (`client.GET('/payments/{id}', { params: { path: { id } } })`), the two-step auth done and renewed
 * on its own, and every refusal thrown as a `PpsError`. A successful call resolves with `{ data, response }`.
 *
 * `createPayment` adds a v4 `requestId` when the body has none and retries network failures, 429, 5xx and a key
 * still in flight with that same `requestId` (backoff with jitter, `Retry-After` honoured), so a retry can never
 * charge twice; any other 4xx is thrown at once. `list` iterates every page of a list with `for await`.
 */
export function createClient(options: ClientOptions) {
  const fetchFn: Fetch = options.fetch ?? ((request) => globalThis.fetch(request));
  const tokens = new AppTokens({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    appId: options.appId,
    appKey: options.appKey,
    refreshBeforeMs: options.refreshBeforeMs,
    fetch: fetchFn,
  });
  // Each request kept (cloned) until its answer: sent again once if its token turns out expired or revoked.
  const sent = new Map<string, { request: Request; token: string }>();

  const api = createFetchClient<paths>({
    baseUrl: options.baseUrl,
    fetch: (request) =>
      fetchFn(request).catch((error: unknown) => {
        throw PpsError.network(error);
      }),
  });
  api.use({
    async onRequest({ request, schemaPath, id }) {
      request.headers.set('pps-version', options.apiVersion ?? API_VERSION);
      request.headers.set('x-api-key', options.apiKey);
      // `/auth/*` authenticates with the API key alone; `GET /auth/token` (what the token is) needs the four.
      if (schemaPath.startsWith('/auth/') && request.method === 'POST') return request;
      const token = await tokens.token();
      request.headers.set('authorization', `Bearer ${token}`);
      request.headers.set('appid', options.appId);
      sent.set(id, { request: request.clone(), token });
      return request;
    },
    async onResponse({ response, id }) {
      const original = sent.get(id);
      sent.delete(id);
      let answer = response;
      if (answer.status === 401 && original) {
        const code = await errorCode(answer.clone());
        if (code === 'token_expired' || code === 'token_revoked') {
          const token = await tokens.replace(original.token, code);
          const again = new Request(original.request, { headers: new Headers(original.request.headers) });
          again.headers.set('authorization', `Bearer ${token}`);
          answer = await fetchFn(again).catch((error: unknown) => {
            throw PpsError.network(error);
          });
        }
      }
      if (!answer.ok) throw await PpsError.fromResponse(answer);
      // Unchanged: nothing to return. Sent again: the new answer, as a Response of this realm's constructor.
      return answer === response ? undefined : new Response(answer.body, answer);
    },
    onError({ id, error }) {
      sent.delete(id);
      return error instanceof Error ? error : PpsError.network(error);
    },
  });

  const retry = {
    retries: options.retry?.retries ?? 4,
    baseDelayMs: options.retry?.baseDelayMs ?? 250,
    maxDelayMs: options.retry?.maxDelayMs ?? 10_000,
  };

  /**
   * `POST /payments`, safely retried: a v4 `requestId` is set when the body has none, and network failures, 429,
   * 5xx and 409 `idempotency_key_in_use` are sent again with it after a backoff (full jitter, `Retry-After` when the
   * API gives one). Any other refusal is thrown at once.
   */
  async function createPayment(body: PaymentBody) {
    const withKey = { ...body, data: { ...body.data, requestId: body.data.requestId ?? crypto.randomUUID() } };
    for (let attempt = 0; ; attempt++) {
      try {
        return await (api as unknown as Methods).POST('/payments', { body: withKey });
      } catch (error) {
        if (!(error instanceof PpsError) || !retriable(error) || attempt >= retry.retries) throw error;
        const backoff = Math.random() * Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** attempt);
        await new Promise((resolve) => setTimeout(resolve, error.retryAfterMs ?? backoff));
      }
    }
  }

  // The methods as openapi-fetch types them, less the failure branch their middleware makes impossible.
  const methods = api as unknown as Methods;
  return {
    GET: methods.GET,
    POST: methods.POST,
    PUT: methods.PUT,
    DELETE: methods.DELETE,
    createPayment,
    list: lister(api),
  };
}

export type Client = ReturnType<typeof createClient>;

/** The `code` of an error answer, if it has one. */
async function errorCode(response: Response): Promise<string | undefined> {
  try {
    return ((await response.json()) as { errors?: { code?: string }[] }).errors?.[0]?.code;
  } catch {
    return undefined;
  }
}

/** The list paths of the API: those whose GET answers `{ data: [...], links: { next } }`. */
type ListPath = {
  [P in keyof paths]: paths[P] extends {
    get: {
      responses: { 200: { content: { 'application/json': { data: unknown[]; links: { next: string | null } } } } };
    };
  }
    ? P
    : never;
}[keyof paths];
type ListItem<P extends ListPath> = paths[P] extends {
  get: { responses: { 200: { content: { 'application/json': { data: (infer I)[] } } } } };
}
  ? I
  : never;
type ListParams<P extends ListPath> = paths[P] extends { get: { parameters: infer Q } } ? Q : never;

/**
 * `for await (const payment of client.list('/payments', { query: { merchantId } }))`: every item of a list, page by
 * page (`limit` per page, 100 unless given), following `links.next` until the last page. `links.next` goes on from
 * the page's last item (`startingAfter`), so each page costs the same however deep the walk.
 */
function lister(api: ReturnType<typeof createFetchClient<paths>>) {
  return async function* list<P extends ListPath>(
    path: P,
    params?: Partial<ListParams<P>>,
  ): AsyncGenerator<ListItem<P>> {
    let query: Record<string, unknown> = {
      limit: 100,
      ...((params as { query?: Record<string, unknown> } | undefined)?.query ?? {}),
    };
    for (;;) {
      const get = api.GET as (path: string, init: object) => Promise<{ data?: unknown }>;
      const { data } = await get(path, { params: { ...(params ?? {}), query } });
      const page = data as { data: ListItem<P>[]; links: { next: string | null } };
      for (const item of page.data) yield item;
      if (!page.links.next || page.data.length === 0) return;
      // The next page is asked as `links.next` asks it: the same filters and limit, from the cursor it names.
      query = Object.fromEntries(new URL(page.links.next).searchParams);
    }
  };
}
