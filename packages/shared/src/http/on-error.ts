import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ZodError } from 'zod';
import { isDatabaseUnavailable } from '../db/client';
import { ApiError, type ApiErrorInit, type ErrorObject, toErrorObject } from '../errors/api-error';
import type { Logger } from '../logger';
import { fieldsTakenBy, unknownFieldDetail } from './strict-body';

/** The error document: `{errors, meta:{requestId, ...}}`. */
export function errorResponse(c: Context, error: ApiError): Response {
  return errorDocument(c, error.status, error.toObjects(), error.meta, error.headers);
}

export function errorDocument(
  c: Context,
  status: number,
  errors: ErrorObject[],
  meta?: Record<string, unknown>,
  headers?: Record<string, string>,
): Response {
  const requestId = c.get('requestId' as never) as string | undefined;
  for (const [name, value] of Object.entries(headers ?? {})) c.header(name, value);
  return c.json({ errors, meta: { requestId, ...meta } }, status as ContentfulStatusCode);
}

/** JSON pointer escaping (RFC 6901). */
const pointerOf = (path: PropertyKey[]) =>
  `/${path.map((part) => String(part).replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;

type ValidationTarget = 'json' | 'query' | 'param' | 'header' | 'form' | 'cookie';

/** The value at `path` in the validated input, or undefined when any step is missing. */
function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input;
  for (const part of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[part];
  }
  return value;
}

/**
 * Every zod issue becomes one 400 error with the field's pointer (body) or parameter name (query, path).
 * Code: a custom issue's `params.code` when it has one, else `missing_field` when the input has nothing at the
 * issue's path (any schema: string, enum, literal, object), else `invalid_field`.
 */
export function zodToApiError(error: ZodError, target: ValidationTarget = 'json', input?: unknown): ApiError {
  const errors: ApiErrorInit[] = error.issues.flatMap((issue): ApiErrorInit | ApiErrorInit[] => {
    if (issue.code === 'unrecognized_keys') return unknownFields(issue.keys, issue.path, target);
    const missing =
      input === undefined
        ? issue.code === 'invalid_type' && /received undefined/.test(issue.message)
        : issue.code !== 'custom' && valueAt(input, issue.path) === undefined;
    const field = issue.path.length ? String(issue.path[issue.path.length - 1]) : 'body';
    // zod's own message for an enum runs the values together; a message written for the API is kept.
    const ownMessage = /^Invalid (?:option|input)\b/.test(issue.message);
    const message =
      issue.code === 'invalid_value' && ownMessage
        ? allowedValues(issue.values)
        : issue.message.replace(/^Invalid input: /, '');
    // Messages written for the API already name their field ("amount must be…"); zod's own do not.
    const detail = missing ? `${field} is required` : message.startsWith(field) ? message : `${field}: ${message}`;
    // A custom issue may name its own stable code (`params: { code: 'invalid_routing_number' }`).
    const custom = issue.code === 'custom' && typeof issue.params?.code === 'string' ? issue.params.code : undefined;
    const code = custom ?? (missing ? 'missing_field' : 'invalid_field');
    if (target === 'json') return { status: 400, code, detail, pointer: pointerOf(issue.path) };
    return { status: 400, code, detail, parameter: String(issue.path[0] ?? field) };
  });
  return ApiError.many(errors);
}

/** One `unknown_field` a field the object does not take, each at its own pointer (or parameter name). */
function unknownFields(keys: string[], path: PropertyKey[], target: ValidationTarget): ApiErrorInit[] {
  const taken = fieldsTakenBy(keys);
  return keys.map((key) => {
    const detail = unknownFieldDetail(key, taken);
    if (target === 'json') return { status: 400, code: 'unknown_field', detail, pointer: pointerOf([...path, key]) };
    return { status: 400, code: 'unknown_field', detail, parameter: String([...path, key][0]) };
  });
}

/**
 * Every value an enum or literal takes, each quoted, separated by spaces: zod's own message runs them together
 * (`"a"|"b"|"c"`), one word the error mapper would cut short as an over-long token.
 */
const allowedValues = (values: readonly unknown[]) =>
  values.length === 1
    ? `must be ${JSON.stringify(values[0])}`
    : `must be one of ${values.map((value) => JSON.stringify(value)).join(', ')}`;

/** The default hook for OpenAPIHono: validation failures become our 400 envelope. */
export const validationHook = (
  result: { success: boolean; error?: unknown; target?: string; data?: unknown },
  c: Context,
): Response | undefined => {
  if (result.success) return undefined;
  const target = (result.target as ValidationTarget) ?? 'json';
  return errorResponse(c, zodToApiError(result.error as ZodError, target, result.data));
};

/** One mapper for everything thrown: ApiError as is, HTTP exceptions by status, the rest a logged 500. */
export function onError(log: Logger): ErrorHandler {
  return (error, c) => {
    if (error instanceof ApiError) return errorResponse(c, error);
    if (error instanceof HTTPException) {
      const status = error.status;
      if (status === 400 && /JSON/i.test(error.message)) {
        return errorResponse(
          c,
          new ApiError({ status: 400, code: 'malformed_json', detail: 'The request body is not valid JSON' }),
        );
      }
      if (status === 413) return errorResponse(c, payloadTooLarge());
      return errorDocument(c, status, [
        toErrorObject({ status, code: `http_${status}`, detail: error.message || 'Request failed' }),
      ]);
    }
    const requestId = c.get('requestId' as never);
    if (isDatabaseUnavailable(error)) {
      log.warn({ err: errorSummary(error), requestId, method: c.req.method, path: c.req.path }, 'database unavailable');
      return errorResponse(c, databaseUnavailable());
    }
    log.error({ err: error, requestId, method: c.req.method, path: c.req.path }, 'unhandled error');
    return errorResponse(
      c,
      new ApiError({
        status: 500,
        code: 'internal_error',
        detail: 'An unexpected error occurred; quote the request id',
      }),
    );
  };
}

/**
 * The database could not be reached or went away mid-request: the client should retry shortly (with the same
 * `requestId`, which makes a payment's retry safe whether or not the first attempt committed).
 */
export const databaseUnavailable = () =>
  new ApiError({
    status: 503,
    code: 'database_unavailable',
    detail: 'The database is unavailable for a moment; retry shortly (with the same requestId for a payment)',
    headers: { 'retry-after': '1' },
  });

/** The driver's own error under drizzle's wrapper: its code and message, never the statement's parameters. */
const errorSummary = (error: unknown) => {
  let cause = error as { code?: unknown; message?: unknown; cause?: unknown };
  while (cause.code === undefined && cause.cause && typeof cause.cause === 'object')
    cause = cause.cause as typeof cause;
  return { code: cause.code, message: typeof cause.message === 'string' ? cause.message.split('\n')[0] : undefined };
};

export const payloadTooLarge = () =>
  new ApiError({
    status: 413,
    code: 'payload_too_large',
    detail: 'The request body is larger than 1 MiB',
    // The rest of the body is never read: close the connection cleanly rather than leave it half-read.
    headers: { connection: 'close' },
  });

/** A route of the contract as the 405 check needs it: its method and OpenAPI path (`/payments/{id}`). */
export type RouteShape = { method: string; path: string };

/** The methods served on a concrete path, by the routes' path templates (a `{param}` matches one segment). */
export function methodsServing(routes: RouteShape[]): (path: string) => string[] {
  let compiled: { method: string; pattern: RegExp }[] | undefined;
  return (path) => {
    compiled ??= routes.map((route) => ({
      method: route.method.toUpperCase(),
      pattern: new RegExp(`^${route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
    }));
    return [...new Set(compiled.filter((route) => route.pattern.test(path)).map((route) => route.method))].sort();
  };
}

/**
 * Unknown routes: 405 with `Allow` when the path exists under other methods (`DELETE /payments/{id}`), else 404
 * `route_not_found`, both in the error envelope. `routes` is read when the first unknown request comes, so it may
 * be the app's own registry, filled after this handler is set.
 */
export const notFoundHandler = (routes: () => RouteShape[] = () => []): NotFoundHandler => {
  let methodsOf: ((path: string) => string[]) | undefined;
  return (c) => {
    methodsOf ??= methodsServing(routes());
    const allowed = methodsOf(c.req.path);
    if (allowed.length > 0 && !allowed.includes(c.req.method)) {
      return errorResponse(
        c,
        new ApiError({
          status: 405,
          code: 'method_not_allowed',
          detail: `${c.req.method} is not served on this path; use ${allowed.join(', ')}`,
          headers: { allow: allowed.join(', ') },
        }),
      );
    }
    return errorResponse(
      c,
      new ApiError({ status: 404, code: 'route_not_found', detail: `No route ${c.req.method} ${c.req.path}` }),
    );
  };
};
