import { once } from 'node:events';
import type { Server } from 'node:http';
import { connect, createServer, type Server as NetServer, type Socket } from 'node:net';
import { type RequestLog, startRequestLog } from '@pps/gateway';
import { createLogger } from '@pps/shared/logger';
import { closeServer, listen } from '@pps/shared/runtime';
import { testRedisUrl } from '@pps/shared/testing';
import Redis from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from '../../fixtures/world';
import { createTestStack, type TestStack } from '../../harness';
import { waitFor } from '../../wait';

/**
 * The request log's writer against what goes wrong: more requests than it keeps (the oldest dropped, and counted),
 * a database that goes away and comes back (the requests answered meanwhile, their rows written once it is back),
 * and over real HTTP, where the answer's body is read as the server wrote it, without a copy.
 */

/** A TCP relay to PostgreSQL that can be cut and restored on the same port: an outage without stopping the server. */
async function postgresRelay(target: { host: string; port: number }) {
  const sockets = new Set<Socket>();
  let server: NetServer | undefined;
  let port = 0;
  const open = async () => {
    server = createServer((client) => {
      const upstream = connect(target.port, target.host);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as { port: number }).port;
  };
  await open();
  return {
    get port() {
      return port;
    },
    /** Refuses new connections and ends the open ones. */
    cut: async () => {
      const closed = new Promise((resolve) => server?.close(resolve));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
    restore: open,
  };
}

/** A counter's value on the stack's /metrics registry. */
async function metric(stack: TestStack, name: string): Promise<number> {
  const found = stack.metrics.registry.getSingleMetric(name);
  const value = found ? (await found.get()).values[0]?.value : undefined;
  return value ?? 0;
}

const rowsOf = async (stack: TestStack, accountId: string) =>
  (await stack.sql<{ n: number }[]>`select count(*)::int as n from request_log where account_id = ${accountId}`)[0]?.n;

describe('more requests than the log keeps', () => {
  let stack: TestStack;
  let world: World;

  beforeAll(async () => {
    // Nothing listens on port 1: every write fails at once, so every request waits in memory.
    stack = await createTestStack({ requestLog: { databaseUrl: 'postgres://postgres@127.0.0.1:1/none', capacity: 3 } });
    world = await createWorld(stack, { token: false });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('answers every request, drops the oldest past the bound and counts them', async () => {
    await stack.requestLog?.flush();
    const droppedBefore = await metric(stack, 'pps_request_log_dropped_total');
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await stack.call('GET', '/merchants', { as: world.creds })).status);
    expect(statuses).toEqual(Array(8).fill(200));
    await stack.requestLog?.flush();
    // The 3 kept before and 5 of the 8 dropped (waiting for the writer, or as rows it could not write): 3 kept.
    expect((await metric(stack, 'pps_request_log_dropped_total')) - droppedBefore).toBe(8);
    expect(await metric(stack, 'pps_request_log_waiting')).toBe(3);
    expect(await metric(stack, 'pps_request_log_written_total')).toBe(0);
  });
});

describe('a database that goes away and comes back', () => {
  let stack: TestStack;
  let world: World;
  let relay: Awaited<ReturnType<typeof postgresRelay>>;
  let requestLog: RequestLog;

  beforeAll(async () => {
    stack = await createTestStack();
    world = await createWorld(stack, { token: false });
    // The writer alone reaches the stack's database through the relay; the API keeps its own pool.
    const url = new URL(stack.config.DATABASE_URL);
    relay = await postgresRelay({ host: url.hostname, port: Number(url.port || 5432) });
    url.hostname = '127.0.0.1';
    url.port = String(relay.port);
    requestLog = startRequestLog({
      config: { ...stack.config, DATABASE_CONNECT_TIMEOUT_MS: 500 },
      log: createLogger({ level: 'silent' }),
      metrics: stack.metrics,
      databaseUrl: url.toString(),
    });
  });
  afterAll(async () => {
    await requestLog?.close();
    await relay?.cut();
    await stack?.close();
  });

  it('answers every request meanwhile, and writes their rows once it is back', async () => {
    const gateway = stack.anotherGateway({ requestLog });
    const call = (path: string) => gateway.request(path, { headers: world.creds.headers });
    expect((await call('/merchants?limit=1')).status).toBe(200);
    await requestLog.flush();
    expect(await rowsOf(stack, world.creds.accountId)).toBe(1);

    await relay.cut();
    const started = performance.now();
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await call(`/merchants?limit=${10 + i}`)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    // Nothing waited for the log: five reads take a few milliseconds each.
    expect(performance.now() - started).toBeLessThan(2000);
    await requestLog.flush();
    await requestLog.flush();
    expect(await rowsOf(stack, world.creds.accountId)).toBe(1);
    expect(await metric(stack, 'pps_request_log_waiting')).toBe(5);

    await relay.restore();
    await waitFor(
      async () => {
        await requestLog.flush();
        return rowsOf(stack, world.creds.accountId);
      },
      { what: 'the rows of the outage written', until: (n) => n === 6 },
    );
    const paths = await stack.sql<{ path: string }[]>`
      select path from request_log where account_id = ${world.creds.accountId} order by created_at, id`;
    expect(paths.map((row) => row.path)).toEqual([
      '/merchants?limit=1',
      ...[10, 11, 12, 13, 14].map((limit) => `/merchants?limit=${limit}`),
    ]);
    expect(await metric(stack, 'pps_request_log_dropped_total')).toBe(0);
    expect(await metric(stack, 'pps_request_log_written_total')).toBe(6);
  });
});

describe('over real HTTP', () => {
  let stack: TestStack;
  let world: World;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    stack = await createTestStack({ requestLog: true });
    world = await createWorld(stack, { token: false });
    const served = await listen(stack.gateway.fetch, 0, '127.0.0.1');
    server = served.server;
    base = `http://127.0.0.1:${served.port}`;
  });
  afterAll(async () => {
    if (server) await closeServer(server);
    await stack?.close();
  });

  it("keeps the answer's body as the server wrote it, without copying the Response", async () => {
    // Once serving, the global Response is @hono/node-server's light one, on top of the platform's; a copy of one
    // (`clone`) would go through the platform's, counted here.
    const platformResponse = Object.getPrototypeOf(globalThis.Response) as typeof Response;
    expect(platformResponse).not.toBe(Function.prototype);
    const clone = Object.getOwnPropertyDescriptor(platformResponse.prototype, 'clone') as PropertyDescriptor;
    let clones = 0;
    Object.defineProperty(platformResponse.prototype, 'clone', {
      ...clone,
      value(this: Response) {
        clones++;
        return clone.value.call(this);
      },
    });
    try {
      // The counter sees a copy of a light Response.
      new globalThis.Response('{}').clone();
      expect(clones).toBe(1);
      clones = 0;
      const response = await fetch(`${base}/sandbox/clock`, { headers: world.creds.headers });
      expect(response.status).toBe(200);
      const text = await response.text();
      await stack.requestLog?.flush();
      const [row] = await stack.sql<{ response_body: string; request_body: string | null }[]>`
        select response_body, request_body from request_log where id = ${response.headers.get('x-request-id')}`;
      expect(JSON.parse(row?.response_body as string)).toEqual(JSON.parse(text));

      // A forwarded POST: the bytes the gateway forwarded, and the service's answer.
      const body = { data: { type: 'webhooks', attributes: { url: 'https://receiver.example.com/h', events: ['*'] } } };
      const created = await fetch(`${base}/webhooks`, {
        method: 'POST',
        headers: { ...world.creds.headers, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(created.status).toBe(201);
      const answer = await created.json();
      await stack.requestLog?.flush();
      const [forwarded] = await stack.sql<{ response_body: string; request_body: string }[]>`
        select response_body, request_body from request_log where id = ${created.headers.get('x-request-id')}`;
      expect(JSON.parse(forwarded?.request_body as string)).toEqual(body);
      expect(JSON.parse(forwarded?.response_body as string).data).toMatchObject({
        id: answer.data.id,
        attributes: { url: 'https://receiver.example.com/h', secret: '[redacted]' },
      });
      expect(clones).toBe(0);
    } finally {
      Object.defineProperty(platformResponse.prototype, 'clone', clone);
    }
  });
});

describe('with the rate limits on', () => {
  let stack: TestStack;
  let world: World;
  let redis: Redis;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
    stack = await createTestStack({ requestLog: true, redis, env: { RATE_LIMIT_RPS: '1000' } });
    world = await createWorld(stack, { token: false });
    const served = await listen(stack.gateway.fetch, 0, '127.0.0.1');
    server = served.server;
    base = `http://127.0.0.1:${served.port}`;
  });
  afterAll(async () => {
    if (server) await closeServer(server);
    await stack?.close();
    await redis?.quit();
  });

  it('keeps the answer rebuilt around its body for the RateLimit headers, over HTTP and in process', async () => {
    const served = await fetch(`${base}/sandbox/clock`, { headers: world.creds.headers });
    expect(served.headers.get('ratelimit-limit')).toBe('1000');
    const text = await served.text();
    const called = await stack.call('GET', '/sandbox/clock', { as: world.creds });
    expect(called.headers.get('ratelimit-limit')).toBe('1000');
    await stack.requestLog?.flush();
    const rows = await stack.sql<{ id: string; response_body: string }[]>`
      select id, response_body from request_log where id in (${served.headers.get('x-request-id')}, ${called.headers.get('x-request-id')})`;
    expect(rows).toHaveLength(2);
    const byId = new Map(rows.map((row) => [row.id, JSON.parse(row.response_body)]));
    expect(byId.get(served.headers.get('x-request-id') as string)).toEqual(JSON.parse(text));
    expect(byId.get(called.headers.get('x-request-id') as string)).toEqual(called.body);
  });
});
