import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { deadline, shedding } from './deadline';
import { requestId } from './middleware';

/** The deadline and shedding middleware on a bare app: what a client hears, and when. */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function app(options: { handlerMs: number; stalledMs?: number }) {
  const watch = { stalledMs: () => options.stalledMs ?? 0 };
  const finished: string[] = [];
  const server = new Hono();
  server.use('*', requestId());
  server.use('*', deadline({ ms: 200, watch }));
  server.use('*', shedding({ deadlineMs: 200, watch }));
  server.all('/work', async (c) => {
    await sleep(options.handlerMs);
    finished.push(c.req.method);
    return c.json({ done: true }, 201);
  });
  return { server, finished };
}

describe('deadline', () => {
  it('leaves an answer in time as it is', async () => {
    const { server } = app({ handlerMs: 10 });
    const response = await server.request('/work', { method: 'POST' });
    expect(response.status).toBe(201);
  });

  it('answers 503 service_unavailable with Retry-After at the deadline; the work goes on out of sight', async () => {
    const { server, finished } = app({ handlerMs: 400 });
    const started = performance.now();
    const response = await server.request('/work', { method: 'POST' });
    const ms = performance.now() - started;
    expect(ms).toBeGreaterThanOrEqual(195);
    expect(ms).toBeLessThan(350);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    const body = await response.json();
    expect(body.errors).toEqual([
      { status: '503', code: 'service_unavailable', title: 'Service Unavailable', detail: expect.any(String) },
    ]);
    expect(body.meta.requestId).toEqual(expect.stringMatching(/^req_/));
    expect(finished).toEqual([]);
    await sleep(300);
    expect(finished).toEqual(['POST']);
  });

  it('blames the database when it has stopped answering', async () => {
    const { server } = app({ handlerMs: 400, stalledMs: 1500 });
    const response = await server.request('/work', { method: 'GET' });
    expect(response.status).toBe(503);
    expect((await response.json()).errors[0].code).toBe('database_unavailable');
  });
});

describe('shedding', () => {
  it('refuses a write at once while the pool has not answered for a quarter of the deadline', async () => {
    const { server, finished } = app({ handlerMs: 10, stalledMs: 51 });
    const started = performance.now();
    const response = await server.request('/work', { method: 'POST' });
    expect(performance.now() - started).toBeLessThan(50);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect((await response.json()).errors[0].code).toBe('database_unavailable');
    await sleep(30);
    expect(finished).toEqual([]);
  });

  it('never sheds a read, nor a write while the pool answers', async () => {
    expect((await app({ handlerMs: 10, stalledMs: 5000 }).server.request('/work')).status).toBe(201);
    expect((await app({ handlerMs: 10, stalledMs: 49 }).server.request('/work', { method: 'POST' })).status).toBe(201);
  });
});
