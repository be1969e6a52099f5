import { isUtf8 } from 'node:buffer';
import type { RouteConfig } from '@hono/zod-openapi';
import { ApiError, listParametersOf } from '@pps/shared/http';
import {
  API_VERSIONS,
  type ApiVersion,
  type BodySchema,
  changesSince,
  isApiVersion,
  type ListParameters,
  NEWEST_VERSION,
  renderAnswer,
  VERSION_HEADER,
  type VersionChange,
  type VersionedBody,
  type VersionedRequest,
} from '@pps/shared/versions';
import type { Context, MiddlewareHandler } from 'hono';
import { keptAnswerBody, replaceBody, requestBytes } from '../bodies';

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

/** What the change modules need of the contract: each list's parameters, each body's schema. */
export type VersionedRoutes = {
  listParameters: ListParameters;
  bodySchema: (method: string, path: string) => BodySchema | undefined;
};

/**
 * The list parameters of every GET route of the contract, and the body schema of every route that takes one, by
 * its path pattern (`{id}` matching one segment).
 */
export function versionedRoutes(routes: readonly RouteConfig[]): VersionedRoutes {
  const patterned = routes.map((route) => ({
    route,
    method: route.method.toUpperCase(),
    pattern: new RegExp(`^${route.path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }));
  const find = (method: string, path: string) =>
    patterned.find((entry) => entry.method === method && entry.pattern.test(path))?.route;
  return {
    listParameters: (method, path) =>
      method === 'GET' ? listParametersOf(find(method, path)?.request?.query) : undefined,
    bodySchema: (method, path) =>
      (find(method, path)?.request?.body?.content?.['application/json'] as { schema?: BodySchema } | undefined)?.schema,
  };
}

/**
 * An authenticated request in its version: the one it asks for (`PPS-Version`), else its account's pin. In the
 * newest, nothing is done. In an older one, each change since then (`changesSince`) turns the request into the
 * newest's before it goes on (`versionedUrl`, which `forward` sends, and the body, put in the request's place), and
 * a 2xx JSON answer back into the older version's (`renderAnswer`), newest change first.
 */
export function versioned(c: Context, routes: VersionedRoutes, next: () => Promise<void>): Promise<void> {
  const asked = c.req.header(VERSION_HEADER);
  const pinned = (c.get('caller') as { account?: { apiVersion?: string } } | undefined)?.account?.apiVersion;
  const version = isApiVersion(asked) ? asked : isApiVersion(pinned) ? pinned : NEWEST_VERSION;
  c.set('apiVersion', version);
  const changes = changesSince(version);
  if (changes.length === 0) return next();
  return inOlderVersion(c, changes, routes, next);
}

const lenient = new TextDecoder();
const encoder = new TextEncoder();

/**
 * The request's body through each change's `body`. It is read once (`requestBytes`), and put back for whatever reads
 * it next (`replaceBody`): as it came, or as a change made it (its type set on the request's headers).
 */
async function versionBody(c: Context, changes: readonly VersionChange[], routes: VersionedRoutes, path: string) {
  if (c.req.method === 'GET' || c.req.method === 'HEAD' || !changes.some((change) => change.body)) return;
  const bytes = await requestBytes(c);
  if (bytes.byteLength === 0) return;
  const given: VersionedBody = {
    contentType: c.req.header('content-type'),
    text: lenient.decode(bytes),
    utf8: isUtf8(bytes),
  };
  const schema = routes.bodySchema(c.req.method, path);
  let body = given;
  for (const change of changes) body = change.body?.(body, { schema }) ?? body;
  if (body === given) {
    replaceBody(c, bytes, given.text);
    return;
  }
  if (body.contentType !== undefined) c.req.raw.headers.set('content-type', body.contentType);
  replaceBody(c, encoder.encode(body.text) as Uint8Array<ArrayBuffer>, body.text);
}

/**
 * A 2xx JSON answer in the older version: its text read where @hono/node-server keeps it (`keptAnswerBody`, else
 * from a copy), parsed only when a change may apply to it (each change names what its answers hold,
 * `answerMentions`), and left as it came when no change touched it.
 */
async function versionAnswer(c: Context, changes: readonly VersionChange[], request: VersionedRequest) {
  const type = c.res.headers.get('content-type') ?? '';
  if (c.res.status >= 300 || !type.includes('json')) return;
  const answering = changes.filter((change) => change.response || change.resource);
  const kept = keptAnswerBody(c.res);
  const text = typeof kept === 'string' ? kept : kept ? lenient.decode(kept) : await c.res.clone().text();
  const touched = answering.some(
    (change) => !change.answerMentions || change.answerMentions.some((mention) => text.includes(mention)),
  );
  if (!touched) return;
  const parsed: unknown = JSON.parse(text);
  const body = renderAnswer(parsed, answering, request);
  if (body === parsed) return;
  const headers = new Headers(c.res.headers);
  headers.delete('content-length');
  c.res = new Response(JSON.stringify(body), { status: c.res.status, headers });
}

async function inOlderVersion(
  c: Context<{ Variables: VersionVariables }>,
  changes: readonly VersionChange[],
  routes: VersionedRoutes,
  next: () => Promise<void>,
) {
  const url = new URL(c.req.url);
  let request: VersionedRequest = { method: c.req.method, path: url.pathname, query: url.searchParams };
  for (const change of changes)
    request = change.request?.(request, { listParameters: routes.listParameters }) ?? request;
  url.search = request.query.toString();
  c.set('versionedUrl', url);
  await versionBody(c, changes, routes, url.pathname);
  await next();
  await versionAnswer(c, changes, request);
}
