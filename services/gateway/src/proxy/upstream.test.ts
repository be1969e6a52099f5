import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { inProcessUpstream } from './upstream';

/** What a service app sees of a call the gateway hands it in this process. */
const app = new Hono();
app.post('/fields', async (c) =>
  c.json({
    isRequest: c.req.raw instanceof Request,
    url: c.req.url,
    method: c.req.method,
    length: c.req.header('content-length'),
    body: await c.req.json(),
  }),
);
app.post('/stream', async (c) => {
  // What only a full Request has: a body stream, a clone, a signal.
  const copy = await c.req.raw.clone().text();
  const streamed = await new Response(c.req.raw.body).text();
  return c.json({ copy, streamed, aborted: c.req.raw.signal.aborted });
});
app.get('/empty', async (c) => c.json({ text: await c.req.text(), length: c.req.header('content-length') ?? null }));

const upstream = inProcessUpstream('test', app);
const call = (path: string, method: string, body?: string) =>
  upstream.fetch({
    url: new URL(`http://service${path}?q=1`),
    method,
    headers: new Headers({ 'content-type': 'application/json' }),
    body: body === undefined ? undefined : new TextEncoder().encode(body),
    caller: { accountId: 'acct_1', appId: 'app_1', clockOffsetSeconds: 0, requestId: 'req_1' },
  });

describe('inProcessUpstream', () => {
  it('hands the app a Request with its url, method, declared length and body', async () => {
    const response = await call('/fields', 'POST', '{"a":"é"}');
    expect(await response.json()).toEqual({
      isRequest: true,
      url: 'http://service/fields?q=1',
      method: 'POST',
      length: String(new TextEncoder().encode('{"a":"é"}').byteLength),
      body: { a: 'é' },
    });
  });

  it('builds the full Request for what else an app reads (a stream, a clone, the signal)', async () => {
    const response = await call('/stream', 'POST', '{"b":2}');
    expect(await response.json()).toEqual({ copy: '{"b":2}', streamed: '{"b":2}', aborted: false });
  });

  it('a call without a body reads as empty, with no length declared', async () => {
    expect(await (await call('/empty', 'GET')).json()).toEqual({ text: '', length: null });
  });
});
