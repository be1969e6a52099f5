import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { newId } from '../ids';
import { ApiError } from './errors';
import { payloadTooLarge } from './on-error';

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

/** Bodies are JSON (a declared other type is 415; none at all is read as JSON) and at most 1 MiB (413). */
export const jsonBodyGuard = (): MiddlewareHandler => {
  const limit = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw payloadTooLarge();
    },
  });
  return async (c, next) => {
    if (!BODY_METHODS.has(c.req.method)) return next();
    const type = c.req.header('content-type') ?? '';
    if (!type) {
      // Content type matters only when there is a body: a bodiless POST or PUT (an action) goes through.
      if (c.req.raw.body === null || c.req.header('content-length') === '0') return next();
      // A body sent without any Content-Type is read as JSON (some clients omit it); only a declared non-JSON
      // type is refused.
      c.req.raw.headers.set('content-type', 'application/json');
      return limit(c, next);
    }
    if (!/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type)) {
      throw new ApiError({
        status: 415,
        code: 'unsupported_media_type',
        detail: 'Send the body as JSON with Content-Type: application/json',
      });
    }
    return limit(c, next);
  };
};
