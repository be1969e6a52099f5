import type { Env, MiddlewareHandler } from 'hono';

/**
 * Whether a request carries a body: by its headers when it has them (over a socket, reading `.body` would start
 * streaming a body nobody may want; an unread stream then stalls the keep-alive connection), else by the Request.
 */
export function hasBody(request: Request): boolean {
  const length = request.headers.get('content-length');
  if (length !== null) return length !== '0';
  return request.headers.has('transfer-encoding') || request.body !== null;
}

const absentBody: MiddlewareHandler<Env> = async (c, next) => {
  if (!hasBody(c.req.raw)) c.req.raw.headers.delete('content-type');
  await next();
};

/**
 * The route middleware (`createRoute({ middleware: optionalBody() })`) of every route whose JSON body is optional
 * (`body: { required: false }`; body.test.ts checks the contract for it). For such a route @hono/zod-openapi parses
 * the body whenever the Content-Type says JSON, and parsing nothing is a 400 `malformed_json`; yet clients send
 * `Content-Type: application/json` on every call (README). So a request without a body (none, or `Content-Length: 0`)
 * loses its Content-Type here and the validator takes it as no body (`{}`). A body that is there, even blank, is
 * parsed and validated as ever; a route whose body is required does not declare this and keeps its 400.
 */
export const optionalBody = (): MiddlewareHandler<Env> => absentBody;
