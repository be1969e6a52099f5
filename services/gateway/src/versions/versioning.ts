import type { RouteConfig } from '@hono/zod-openapi';
import { ApiError, listParametersOf } from '@pps/shared/http';
import {
  API_VERSIONS,
  type ApiVersion,
  changesSince,
  isApiVersion,
  type ListParameters,
  NEWEST_VERSION,
  VERSION_HEADER,
  type VersionedRequest,
} from '@pps/shared/versions';
import type { Context, MiddlewareHandler } from 'hono';

/** The version a request is rendered in, and the URL it goes on with once an older version's changes cut it. */
export type VersionVariables = { apiVersion?: ApiVersion; versionedUrl?: URL };

export const versionErrors = {
  invalid: (given: string) =>
    new ApiError({
      status: 400,
      code: 'invalid_version',
      detail: `${JSON.stringify(given.slice(0, 40))} is not an API version; the versions are ${API_VERSIONS.join(', ')}`,
      parameter: 'PPS-Version',
    }),
};

/**
 * The first look at a request's version (docs/api.md, Versions), before anything else answers it: a `PPS-Version`
 * that is no version is a 400 `invalid_version` naming the known ones, whoever asks. Every answer then says the
 * version it was rendered in: the one the request was answered in (`versioned`), else the one it asked for, else
 * the newest.
 */
export const versionHeader = (): MiddlewareHandler<{ Variables: VersionVariables }> => async (c, next) => {
  const asked = c.req.header(VERSION_HEADER);
  if (asked !== undefined && !isApiVersion(asked)) throw versionErrors.invalid(asked);
  await next();
  const version = c.get('apiVersion') ?? asked ?? NEWEST_VERSION;
  try {
    c.res.headers.set(VERSION_HEADER, version);
  } catch {
    // A Response whose headers are immutable (one `fetch` made): its copy takes the header.
    const headers = new Headers(c.res.headers);
    headers.set(VERSION_HEADER, version);
    c.res = new Response(c.res.body, { status: c.res.status, statusText: c.res.statusText, headers });
  }
};

/** The list parameters of every GET route of the contract, by its path pattern (`{id}` matching one segment). */
export function listParametersOfRoutes(routes: readonly RouteConfig[]): ListParameters {
  const lists = routes.flatMap((route) => {
    const known = listParametersOf(route.request?.query);
    if (route.method !== 'get' || !known) return [];
    const pattern = new RegExp(`^${route.path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    return [{ pattern, known }];
  });
  return (method, path) => (method === 'GET' ? lists.find((list) => list.pattern.test(path))?.known : undefined);
}

/**
 * An authenticated request in its version: the one it asks for (`PPS-Version`), else its account's pin. In the
 * newest, nothing is done. In an older one, each change since then (`changesSince`) turns the request into the
 * newest's before it goes on (`versionedUrl`, which `forward` sends), and a 2xx JSON answer back into the older
 * version's, newest change first.
 */
export function versioned(c: Context, listParameters: ListParameters, next: () => Promise<void>): Promise<void> {
  const asked = c.req.header(VERSION_HEADER);
  const pinned = (c.get('caller') as { account?: { apiVersion?: string } } | undefined)?.account?.apiVersion;
  const version = isApiVersion(asked) ? asked : isApiVersion(pinned) ? pinned : NEWEST_VERSION;
  c.set('apiVersion', version);
  const changes = changesSince(version);
  if (changes.length === 0) return next();
  return inOlderVersion(c, changes, listParameters, next);
}

async function inOlderVersion(
  c: Context<{ Variables: VersionVariables }>,
  changes: ReturnType<typeof changesSince>,
  listParameters: ListParameters,
  next: () => Promise<void>,
) {
  const url = new URL(c.req.url);
  let request: VersionedRequest = { method: c.req.method, path: url.pathname, query: url.searchParams };
  for (const change of changes) request = change.request?.(request, { listParameters }) ?? request;
  url.search = request.query.toString();
  c.set('versionedUrl', url);
  await next();
  const type = c.res.headers.get('content-type') ?? '';
  if (c.res.status >= 300 || !type.includes('json')) return;
  let body: unknown = await c.res.clone().json();
  for (const change of changes) body = change.response?.(body, request) ?? body;
  const headers = new Headers(c.res.headers);
  headers.delete('content-length');
  c.res = new Response(JSON.stringify(body), { status: c.res.status, headers });
}
