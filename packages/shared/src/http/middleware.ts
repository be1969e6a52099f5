import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { every } from 'hono/combine';
import { ApiError } from '../errors/api-error';
import { newId } from '../ids';
import { hasBody } from './body';
import { payloadTooLarge } from './on-error';
import { textGuard } from './text-guard';

export const MAX_BODY_BYTES = 1024 * 1024;
const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Every response carries `x-request-id`: the client's when it sent a sane one, else a new one. */
export const requestId = (): MiddlewareHandler => async (c, next) => {
  const incoming = c.req.header('x-request-id');
  const id = incoming && REQUEST_ID.test(incoming) ? incoming : newId('request');
  c.set('requestId' as never, id as never);
  c.header('x-request-id', id);
  await next();
};

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** Bodies are at most 1 MiB (413), checked first so an oversized body is never read. */
export const bodySizeGuard = (): MiddlewareHandler => {
  const limit = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw payloadTooLarge();
    },
  });
  return async (c, next) => {
    if (!BODY_METHODS.has(c.req.method)) return next();
    // Content type matters only when there is a body: a bodiless POST or PUT (an action) goes through.
    if (!hasBody(c.req.raw)) return next();
    // A declared length is judged as declared, without touching the body (Node reads no more than it declares);
    // only a streamed body is counted as it is read.
    const length = c.req.header('content-length');
    if (length === undefined || c.req.header('transfer-encoding')) return limit(c, next);
    if (Number(length) > MAX_BODY_BYTES) throw payloadTooLarge();
    return next();
  };
};

/**
 * A body declared as anything but JSON, or not declared at all, is a 415: a body is never guessed to be JSON
 * (docs/decisions.md). Runs after authentication: a stranger learns nothing.
 */
export const contentTypeGuard = (): MiddlewareHandler => async (c, next) => {
  if (!BODY_METHODS.has(c.req.method) || !hasBody(c.req.raw)) return next();
  if (!JSON_TYPE.test(c.req.header('content-type') ?? '')) {
    throw new ApiError({
      status: 415,
      code: 'unsupported_media_type',
      detail: 'Send the body as JSON with Content-Type: application/json',
    });
  }
  await next();
};

/** What a route checks of a body once the caller is known: JSON (415), then text it can store (400). */
export const bodyChecks = (): MiddlewareHandler => every(contentTypeGuard(), textGuard());
