import { type ApiVersion, olderThan } from './versions';

/** A request as a change module sees it: its method, path and query, before it reaches the service. */
export type VersionedRequest = { method: string; path: string; query: URLSearchParams };

/** What a list route takes: the query parameter names of each GET route's list, by path pattern. */
export type ListParameters = (method: string, path: string) => readonly string[] | undefined;

/**
 * One behaviour change, written once: the version that brought it, its changelog line, and how a newest-version
 * request (`request`) and answer (`response`, the parsed JSON body of a 2xx) are turned into the previous version's.
 * A module changes what it must and returns the rest as it came.
 */
export type VersionChange = {
  /** The first version with the new behaviour: requests in any older version are transformed. */
  version: ApiVersion;
  name: string;
  changelog: string;
  request?: (request: VersionedRequest, context: { listParameters: ListParameters }) => VersionedRequest;
  response?: (body: unknown, request: VersionedRequest) => unknown;
};

type ListDocument = { links?: { next?: string | null }; data?: unknown[]; meta?: { offset?: number; limit?: number } };
const isList = (body: unknown): body is ListDocument =>
  typeof body === 'object' && body !== null && Array.isArray((body as ListDocument).data) && 'links' in body;

/**
 * `links.next` by cursor (`startingAfter`, `endingBefore`) since 2026-11-29; before, by offset: the next page is
 * `offset` past this one, so a client that reads `meta.offset` from it sees where it is.
 */
const linksNextByCursor: VersionChange = {
  version: '2026-11-29',
  name: 'list-links-next-by-cursor',
  changelog:
    "A list's `links.next` continues by cursor (`startingAfter`, or `endingBefore` toward newer items) instead of " +
    'by `offset`, so a page is never skipped or read twice while items are added.',
  response(body) {
    if (!isList(body) || !body.links?.next) return body;
    const next = new URL(body.links.next);
    if (!next.searchParams.has('startingAfter') && !next.searchParams.has('endingBefore')) return body;
    next.searchParams.delete('startingAfter');
    next.searchParams.delete('endingBefore');
    const offset = (body.meta?.offset ?? 0) + (body.data?.length ?? 0);
    next.searchParams.set('offset', String(offset));
    return { ...body, links: { ...body.links, next: next.toString() } };
  },
};

/** A list's unknown query parameter is a 400 since 2026-11-29; before, it was ignored. */
const unknownListParametersRefused: VersionChange = {
  version: '2026-11-29',
  name: 'unknown-list-parameters-refused',
  changelog:
    'A list refuses a query parameter it does not take (400 `unknown_parameter`, naming it) instead of ignoring ' +
    'it, so a misspelt filter is never an unfiltered list.',
  request(request, { listParameters }) {
    if (request.method !== 'GET') return request;
    const known = listParameters(request.method, request.path);
    if (!known) return request;
    const query = new URLSearchParams();
    for (const [name, value] of request.query) if (known.includes(name)) query.append(name, value);
    return { ...request, query };
  },
};

/** Every change, newest first: a request in version V is transformed by each change newer than V, in this order. */
export const VERSION_CHANGES: readonly VersionChange[] = [linksNextByCursor, unknownListParametersRefused];

/** The changes between `version` and the newest: what its requests and answers go through. None for the newest. */
export const changesSince = (version: ApiVersion): VersionChange[] =>
  VERSION_CHANGES.filter((change) => olderThan(version, change.version));
