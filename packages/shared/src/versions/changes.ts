import { membersOf, removeUnknownMembers } from './known-members';
import { type ApiVersion, olderThan } from './versions';

/** A request as a change module sees it: its method, path and query, before it reaches the service. */
export type VersionedRequest = { method: string; path: string; query: URLSearchParams };

/**
 * A request's body as a change module sees it: its `Content-Type` (undefined when none was sent) and its text,
 * decoded leniently (bytes that are not UTF-8 as U+FFFD); `utf8` says whether the bytes were UTF-8. The gateway sends
 * the bytes as they came unless a module changed one of the three.
 */
export type VersionedBody = { contentType: string | undefined; text: string; utf8: boolean };

/** What a body is checked by: the operation's request schema (a zod schema; `known-members.ts` reads it). */
export type BodySchema = object;

/** What a list route takes: the query parameter names of each GET route's list, by path pattern. */
export type ListParameters = (method: string, path: string) => readonly string[] | undefined;

/** A JSON:API resource object (`data`, an item of a list's `data`, an event's `payload.data`). */
export type Resource = { type: string; id?: string; attributes?: Record<string, unknown> } & Record<string, unknown>;

/**
 * One behaviour change, written once: the version that brought it, its changelog line, and how a newest-version
 * request and answer are turned into the previous version's: `request` (method, path, query) and `body` (a body's
 * text and type) before the request goes on; `response` (the parsed JSON of a 2xx) and `resource` (each resource of
 * an answer, and the resource in an event's payload, wherever it is delivered or read) after. A module changes what
 * it must and returns the rest as it came.
 */
export type VersionChange = {
  /** The first version with the new behaviour: requests in any older version are transformed. */
  version: ApiVersion;
  name: string;
  changelog: string;
  request?: (request: VersionedRequest, context: { listParameters: ListParameters }) => VersionedRequest;
  body?: (body: VersionedBody, context: { schema: BodySchema | undefined }) => VersionedBody;
  response?: (body: unknown, request: VersionedRequest) => unknown;
  resource?: (resource: Resource) => Resource;
  /**
   * Text an answer this change may touch always holds (a status it renames, a parameter of the links it rewrites):
   * an answer holding none of it is left as it came, not parsed. Without it, every answer is parsed for the change.
   */
  answerMentions?: readonly string[];
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
  answerMentions: ['startingAfter=', 'endingBefore='],
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

/** A body without `Content-Type` is a 415 since 2026-11-29; before, it was read as JSON. */
const contentTypeRequired: VersionChange = {
  version: '2026-11-29',
  name: 'content-type-required',
  changelog:
    'A request body without `Content-Type: application/json` is refused (415 `unsupported_media_type`) instead of ' +
    'being read as JSON.',
  body(body) {
    if (body.contentType !== undefined || body.text.length === 0) return body;
    return { ...body, contentType: 'application/json' };
  },
};

/** A body that is not UTF-8 is a 400 since 2026-11-29; before, its bad bytes were read as U+FFFD. */
const invalidUtf8Refused: VersionChange = {
  version: '2026-11-29',
  name: 'invalid-utf8-refused',
  changelog:
    'A request body that is not UTF-8 is refused (400 `invalid_field` at each string that held bad bytes) instead ' +
    'of being stored with replacement characters.',
  body: (body) => (body.utf8 ? body : { ...body, utf8: true }),
};

/** A body's unknown member is a 400 `unknown_field` since 2026-11-29; before, it was ignored. */
const unknownFieldsRefused: VersionChange = {
  version: '2026-11-29',
  name: 'unknown-fields-refused',
  changelog:
    'A request body member the operation does not take, at any depth, is refused (400 `unknown_field` at its ' +
    'pointer) instead of being ignored, so a misspelt `capture` never charges a card meant only to be authorized.',
  body(body, { schema }) {
    if (!schema || !body.contentType?.toLowerCase().includes('json')) return body;
    let value: unknown;
    try {
      value = JSON.parse(body.text);
    } catch {
      return body;
    }
    return removeUnknownMembers(membersOf(schema), value) ? { ...body, text: JSON.stringify(value) } : body;
  },
};

/** A payment's statuses in 2026-11-21: no `requires_action`, no void for an abandoned challenge. */
const OLD_STATUS: Record<string, string> = { requires_action: 'pending' };
const OLD_VOID_REASON: Record<string, string> = { authentication_abandoned: 'cancelled' };

/**
 * A payment waiting for its customer's 3-D Secure challenge is `requires_action` since 2026-11-29; before, that
 * status did not exist: it reads `pending` (undecided, its outcome still to come by event), and a challenge abandoned
 * reads as a cancelled void.
 */
const requiresActionStatus: VersionChange = {
  version: '2026-11-29',
  name: 'payment-requires-action',
  changelog:
    'A payment waiting for its customer to complete a 3-D Secure challenge is `requires_action` (with ' +
    '`nextAction`) instead of `pending`, and one whose challenge was abandoned is voided with `voidReason` ' +
    '`authentication_abandoned` instead of `cancelled`.',
  answerMentions: Object.keys({ ...OLD_STATUS, ...OLD_VOID_REASON }),
  resource(resource) {
    if (resource.type !== 'payments') return resource;
    const attributes = resource.attributes ?? {};
    const status = OLD_STATUS[attributes.status as string];
    const voidReason = OLD_VOID_REASON[attributes.voidReason as string];
    const previous = OLD_STATUS[resource.previousStatus as string];
    if (!status && !voidReason && !previous) return resource;
    return {
      ...resource,
      attributes: { ...attributes, ...(status ? { status } : {}), ...(voidReason ? { voidReason } : {}) },
      ...(previous ? { previousStatus: previous } : {}),
    };
  },
};

/**
 * Every change, newest first: a request in version V is transformed by each change newer than V, in this order (so
 * among one version's changes, a body is given its type before its members are judged).
 */
export const VERSION_CHANGES: readonly VersionChange[] = [
  linksNextByCursor,
  unknownListParametersRefused,
  contentTypeRequired,
  invalidUtf8Refused,
  unknownFieldsRefused,
  requiresActionStatus,
];

/** The changes between `version` and the newest: what its requests and answers go through. None for the newest. */
export const changesSince = (version: ApiVersion): VersionChange[] =>
  VERSION_CHANGES.filter((change) => olderThan(version, change.version));
