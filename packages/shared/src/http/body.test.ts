import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { describe, expect, it } from 'vitest';
import { allRoutes } from '../contract';
import { createLogger } from '../logger';
import { optionalBody } from './body';
import { onError, validationHook } from './on-error';

const schema = z.object({ data: z.object({ name: z.string() }).optional() });
const json = { content: { 'application/json': { schema } } };
const answer = { 200: { description: 'ok' } };

/** Two routes as the contract declares them: one whose body is optional, one whose body is required. */
function app() {
  const app = new OpenAPIHono({ defaultHook: validationHook as never });
  app.onError(onError(createLogger({ level: 'silent' })));
  const optional = createRoute({
    method: 'post',
    path: '/optional',
    middleware: optionalBody(),
    request: { body: { required: false, ...json } },
    responses: answer,
  });
  const required = createRoute({
    method: 'post',
    path: '/required',
    request: { body: { required: true, ...json } },
    responses: answer,
  });
  app.openapi(optional, (c) => c.json({ body: c.req.valid('json') }, 200));
  app.openapi(required, (c) => c.json({ body: c.req.valid('json') }, 200));
  return app;
}

const post = async (path: string, headers: Record<string, string>, body?: string) => {
  const response = await app().request(path, { method: 'POST', headers, body });
  return { status: response.status, body: await response.json() };
};
const asJson = { 'content-type': 'application/json' };
const codeOf = (res: { body: { errors?: { code: string }[] } }) => res.body.errors?.[0]?.code;

describe('optionalBody', () => {
  it('an optional body that is absent reads as {}, with or without Content-Type: application/json', async () => {
    const empty: Record<string, string>[] = [
      {},
      asJson,
      { ...asJson, 'content-length': '0' },
      { 'content-length': '0' },
    ];
    for (const headers of empty) {
      expect(await post('/optional', headers)).toEqual({ status: 200, body: { body: {} } });
    }
  });

  it('an optional body that is present is parsed and validated as ever', async () => {
    expect(await post('/optional', asJson, '{"data":{"name":"x"}}')).toEqual({
      status: 200,
      body: { body: { data: { name: 'x' } } },
    });
    for (const raw of ['{"data": ', ' ']) expect(codeOf(await post('/optional', asJson, raw))).toBe('malformed_json');
    const wrong = await post('/optional', asJson, '{"data":{"name":1}}');
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors[0].source).toEqual({ pointer: '/data/name' });
  });

  it('a required body keeps its 400 for an empty body sent as JSON', async () => {
    for (const headers of [asJson, { ...asJson, 'content-length': '0' }]) {
      const res = await post('/required', headers);
      expect(res.status).toBe(400);
      expect(codeOf(res)).toBe('malformed_json');
    }
  });

  it('every route of the contract whose JSON body is optional declares it', () => {
    const optional = allRoutes.filter((route) => route.request?.body && route.request.body.required !== true);
    expect(optional.map((route) => `${route.method} ${route.path}`)).toContain('post /events/{id}/redeliver');
    for (const route of optional) {
      expect([route.middleware].flat(), `${route.method} ${route.path}`).toContain(optionalBody());
    }
  });
});
