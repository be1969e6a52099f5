import type { schema } from '@pps/shared/db';
import { newId } from '@pps/shared/ids';
import { redactBody, redactText } from './redact';

/**
 * A body as the request left it, not read yet: bytes or text at hand, the body Hono read (a promise), or a copy of
 * the answer to read. Nothing is decoded, parsed or copied on the request path.
 */
export type BodySource = string | Uint8Array | ArrayBuffer | Response | Promise<string | ArrayBuffer> | undefined;

/** What the gateway keeps of one request until the writer takes it: references and numbers, nothing worked out. */
export type CapturedRequest = {
  accountId: string;
  method: string;
  /** The request's absolute URL: its path and query are worked out by the writer. */
  url: string;
  status: number;
  /** The `x-request-id` the answer carried. */
  requestId: string;
  /** Whether the client chose that id (it sent `x-request-id`); else the gateway made it, and it is the row's id. */
  clientChoseId: boolean;
  /** The `Idempotency-Key` header. */
  idempotencyKey: string | undefined;
  /** Real time the request began, in ms since the epoch. */
  startedAt: number;
  durationMs: number;
  requestBody: BodySource;
  responseBody: BodySource;
};

/**
 * Whether a body source is a Response to read. Not by `instanceof`: once @hono/node-server serves, the global
 * `Response` is its light class, and a Response made by the platform's own (a `clone()`) is no instance of it.
 */
export const isResponse = (source: BodySource): source is Response =>
  typeof (source as Response | undefined)?.text === 'function';

/** The most of a body the log keeps, in characters of its redacted JSON text (16 KiB of ASCII). */
export const BODY_CHARS = 16_384;
/** Paths are cut here: the path index takes entries of at most about 2.7 kB. */
const PATH_CHARS = 1024;
const KEY_CHARS = 200;

const decoder = new TextDecoder();

/** The row a captured request is written as: its bodies redacted (by field name and by shape) and cut. */
export async function requestLogRow(captured: CapturedRequest): Promise<schema.NewRequestLogRow> {
  const [request, response] = await Promise.all([
    keptBody(captured.requestBody, { ours: false }),
    keptBody(captured.responseBody, { ours: true }),
  ]);
  const { url } = captured;
  const pathAt = url.indexOf('/', url.indexOf('//') + 2);
  const queryAt = url.indexOf('?', pathAt);
  const path = queryAt < 0 ? url.slice(pathAt) : `${url.slice(pathAt, queryAt)}${redactQuery(url.slice(queryAt))}`;
  const pathname = queryAt < 0 ? path : url.slice(pathAt, queryAt);
  const idempotencyKey = captured.idempotencyKey ?? bodyKey(captured.method, pathname, request.value);
  return {
    id: captured.clientChoseId ? newId('request', captured.startedAt) : captured.requestId,
    accountId: captured.accountId,
    method: captured.method,
    path: cut(path, PATH_CHARS).text,
    status: captured.status,
    clientRequestId: captured.clientChoseId ? captured.requestId : null,
    idempotencyKey: idempotencyKey === undefined ? null : cut(redactText(idempotencyKey), KEY_CHARS).text,
    durationMs: captured.durationMs,
    requestBody: request.text,
    requestBodyTruncated: request.truncated,
    responseBody: response.text,
    responseBodyTruncated: response.truncated,
    createdAt: new Date(captured.startedAt),
  };
}

type KeptBody = { text: string | null; truncated: boolean; value?: unknown };
const NO_BODY: KeptBody = { text: null, truncated: false };

/** A body redacted and cut; none when there was none, or it was not JSON (it cannot be redacted field by field). */
async function keptBody(source: BodySource, options: { ours: boolean }): Promise<KeptBody> {
  let text: string;
  try {
    const body = isResponse(source) ? await source.text() : await source;
    if (body === undefined) return NO_BODY;
    text = typeof body === 'string' ? body : decoder.decode(body);
  } catch {
    return NO_BODY;
  }
  const redacted = text.length === 0 ? undefined : redactBody(text, options);
  if (!redacted) return NO_BODY;
  return { ...cut(redacted.text, BODY_CHARS), value: redacted.value };
}

/** `text` cut to `max` characters, never between the two halves of a surrogate pair. */
function cut(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  const end = /[\ud800-\udbff]/.test(text.charAt(max - 1)) ? max - 1 : max;
  return { text: text.slice(0, end), truncated: true };
}

/** A query string with each value redacted by shape (a key or a card number sent as a parameter). */
const redactQuery = (search: string) => search.replace(/=([^&]*)/g, (_, value: string) => `=${redactText(value)}`);

/** The idempotency key of an idempotent POST sent in its body (`data.requestId`) rather than as the header. */
function bodyKey(method: string, pathname: string, body: unknown): string | undefined {
  if (method !== 'POST' || (pathname !== '/payments' && pathname !== '/payouts')) return undefined;
  const data = (body as { data?: { requestId?: unknown } } | null)?.data;
  return typeof data?.requestId === 'string' ? data.requestId : undefined;
}
