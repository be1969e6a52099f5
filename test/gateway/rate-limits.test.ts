import { createServer, type Server, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { testConfig } from '@pps/shared/config';
import { createLogger } from '@pps/shared/logger';
import { closeServer, listen } from '@pps/shared/runtime';
import { Hono } from 'hono';
import Redis, { type RedisOptions } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRateLimits } from '../../services/gateway/src/limits/rate-limits';
import { type ApiResponse, type Credentials, createTestStack, expectError, type TestStack } from '../harness';

/** The gateway's rate limits, counted in a real Redis (services/gateway/src/limits/rate-limits.ts). */
const gatewayRedisOptions: RedisOptions = { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false };
const redisUrl = testConfig().REDIS_URL;
const redis = new Redis(redisUrl, gatewayRedisOptions);
const closing: (() => unknown)[] = [];

beforeAll(async () => {
  await redis.connect();
});
afterAll(async () => {
  for (const close of closing.reverse()) await close();
  redis.disconnect();
});

async function stackWith(env: Record<string, string>, options: { redis?: Redis; log?: ReturnType<typeof logTo> } = {}) {
  const stack = await createTestStack({ redis: options.redis ?? redis, env, log: options.log?.logger });
  closing.push(() => stack.close());
  return stack;
}

/** A logger whose lines land in an array. */
function logTo() {
  const lines: { level: string; msg: string }[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: createLogger({ level: 'info', destination: sink }) };
}

/** Every counter of this stack's limits starts again (the keys live under its QUEUE_PREFIX). */
async function resetLimits(stack: TestStack) {
  const keys = await redis.keys(`${stack.config.QUEUE_PREFIX}:rl:*`);
  if (keys.length > 0) await redis.del(...keys);
  return keys;
}

async function request(app: TestStack['gateway'], path: string, headers: Record<string, string>): Promise<ApiResponse> {
  const response = await app.request(path, { headers });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

const badToken = (creds: Credentials) => ({ ...creds.headers, authorization: 'Bearer aaa.bbb.ccc' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function expectLimitHeaders(response: ApiResponse, limit: number) {
  expect(response.headers.get('ratelimit-limit')).toBe(String(limit));
  const remaining = Number(response.headers.get('ratelimit-remaining'));
  const reset = Number(response.headers.get('ratelimit-reset'));
  expect(remaining).toBeGreaterThanOrEqual(0);
  expect(remaining).toBeLessThanOrEqual(limit);
  expect(Number.isInteger(reset) && reset >= 1).toBe(true);
}

function expect429(response: ApiResponse, code: string, limit: number, maxRetryAfter: number) {
  expectError(response, 429, code);
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(maxRetryAfter);
  expectLimitHeaders(response, limit);
  expect(response.headers.get('ratelimit-remaining')).toBe('0');
  expect(response.headers.get('ratelimit-reset')).toBe(String(retryAfter));
  return retryAfter;
}

describe('per account (RATE_LIMIT_RPS=5: 5 a second, bursts of 10)', () => {
  let stack: TestStack;
  let a: Credentials;
  let b: Credentials;
  beforeAll(async () => {
    stack = await stackWith({ RATE_LIMIT_RPS: '5' });
    a = await stack.createAccount('Limited A');
    b = await stack.createAccount('Limited B');
  });

  it('lets a burst of 10 through, then 429 rate_limited with Retry-After and RateLimit-*; another account is unaffected', async () => {
    // Creating the accounts counted (POST /auth/key, /auth/token), under this stack's prefix only.
    expect((await resetLimits(stack)).length).toBeGreaterThan(0);
    const burst = await Promise.all(Array.from({ length: 10 }, () => stack.call('GET', '/auth/token', { as: a })));
    expect(burst.map((response) => response.status)).toEqual(Array(10).fill(200));
    for (const response of burst) expectLimitHeaders(response, 5);

    const refused = await stack.call('GET', '/auth/token', { as: a });
    const retryAfter = expect429(refused, 'rate_limited', 5, 1);
    // Forwarded routes and the API-key routes count the same account.
    expectError(await stack.call('GET', '/merchants', { as: a }), 429, 'rate_limited');
    const token = await stack.call('POST', '/auth/token', {
      headers: { 'x-api-key': a.apiKey },
      body: { data: { type: 'auth', attributes: { appKey: a.appKey } } },
    });
    expectError(token, 429, 'rate_limited');

    const other = await stack.call('GET', '/auth/token', { as: b });
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit-remaining')).toBe('4');
    // Admin calls are not limited per account.
    const admin = await stack.call('POST', '/admin/accounts', {
      headers: stack.admin,
      body: { data: { type: 'accounts', attributes: { name: 'Admin still works' } } },
    });
    expect(admin.status).toBe(201);
    expect(admin.headers.get('ratelimit-limit')).toBeNull();

    // After Retry-After, the sustained rate is available again.
    await sleep(retryAfter * 1000 + 50);
    const again = await stack.call('GET', '/merchants', { as: a });
    expect(again.status).toBe(200);
    expectLimitHeaders(again, 5);
  });

  it('adds the headers to a forwarded answer, whose headers are immutable', async () => {
    // Served like production (serving replaces the global Response), the gateway's /healthz stands in for a service.
    const { server, port } = await listen(stack.gateway.fetch, 0, '127.0.0.1');
    try {
      const limits = createRateLimits({ config: stack.config, redis, log: createLogger({ level: 'silent' }) });
      const app = new Hono();
      app.use('*', (c, next) => limits.perAccount(c, 'acc_forwarded', next));
      app.get('/', () => fetch(`http://127.0.0.1:${port}/healthz`));
      const response = await app.request('/');
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: 'ok' });
      expect(response.headers.get('ratelimit-limit')).toBe('5');
      expect(response.headers.get('content-type')).toMatch(/application\/json/);
    } finally {
      await closeServer(server);
    }
  });

  it('holds across two gateways sharing Redis and the prefix', async () => {
    await resetLimits(stack);
    const second = stack.anotherGateway();
    const first = await Promise.all(Array.from({ length: 10 }, () => stack.call('GET', '/auth/token', { as: a })));
    expect(first.map((response) => response.status)).toEqual(Array(10).fill(200));
    expect429(await request(second, '/auth/token', a.headers), 'rate_limited', 5, 1);
  });
});

describe('RATE_LIMIT_RPS=0, AUTH_FAILURE_LIMIT=2 and TRUST_PROXY=1', () => {
  let stack: TestStack;
  let creds: Credentials;
  beforeAll(async () => {
    stack = await stackWith({ RATE_LIMIT_RPS: '0', AUTH_FAILURE_LIMIT: '2', TRUST_PROXY: '1' });
    creds = await stack.createAccount();
  });

  it('never limits an account, and sends no RateLimit headers', async () => {
    const responses = await Promise.all(
      Array.from({ length: 40 }, () => stack.call('GET', '/auth/token', { as: creds })),
    );
    expect(responses.every((response) => response.status === 200)).toBe(true);
    expect(responses[0]!.headers.get('ratelimit-limit')).toBeNull();
    expect((await stack.call('GET', '/readyz')).body.checks.rateLimits).toBe('ok');
  });

  it('counts failures by the X-Forwarded-For entry the trusted proxy added', async () => {
    const from = (address: string) => ({ ...badToken(creds), 'x-forwarded-for': `10.9.9.9, ${address}` });
    for (let i = 0; i < 2; i++)
      expectError(await stack.call('GET', '/auth', { headers: from('203.0.113.7') }), 401, 'invalid_token');
    expect429(
      await stack.call('GET', '/auth', { headers: from('203.0.113.7') }),
      'too_many_failed_authentications',
      2,
      60,
    );
    // Another client behind the same proxy has a count of its own.
    expectError(await stack.call('GET', '/auth', { headers: from('203.0.113.8') }), 401, 'invalid_token');
    const valid = await stack.call('GET', '/auth', { headers: { ...creds.headers, 'x-forwarded-for': '203.0.113.9' } });
    expect(valid.status).toBe(200);
  });
});

describe('failed authentications per address (AUTH_FAILURE_LIMIT=3)', () => {
  let stack: TestStack;
  let creds: Credentials;
  beforeAll(async () => {
    stack = await stackWith({ AUTH_FAILURE_LIMIT: '3' });
    creds = await stack.createAccount();
  });

  it('answers 3 bad tokens with 401, then 429 to any attempt from the address, valid credentials included', async () => {
    await resetLimits(stack);
    for (let i = 0; i < 3; i++)
      expectError(await stack.call('GET', '/payments/states', { headers: badToken(creds) }), 401, 'invalid_token');
    expect429(
      await stack.call('GET', '/payments/states', { headers: badToken(creds) }),
      'too_many_failed_authentications',
      3,
      60,
    );
    expect429(await stack.call('GET', '/auth', { as: creds }), 'too_many_failed_authentications', 3, 60);
    const token = await stack.call('POST', '/auth/token', {
      headers: { 'x-api-key': creds.apiKey },
      body: { data: { type: 'auth', attributes: { appKey: creds.appKey } } },
    });
    expectError(token, 429, 'too_many_failed_authentications');
    // Without TRUST_PROXY, X-Forwarded-For changes nothing.
    const spoofed = await stack.call('GET', '/auth', { as: creds, headers: { 'x-forwarded-for': '198.51.100.1' } });
    expectError(spoofed, 429, 'too_many_failed_authentications');

    // What needs no authentication behaves as before.
    expect((await stack.call('GET', '/healthz')).status).toBe(200);
    const ready = await stack.call('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toEqual({ database: 'ok', redis: 'ok', rateLimits: 'ok' });
    const admin = await stack.call('POST', '/admin/accounts', {
      headers: stack.admin,
      body: { data: { type: 'accounts', attributes: { name: 'Admin unaffected' } } },
    });
    expect(admin.status).toBe(201);
    expectError(await stack.call('GET', '/nowhere'), 404, 'route_not_found');
  });

  it('counts a bad API key, a bad app key and a missing header alike', async () => {
    await resetLimits(stack);
    const key = await stack.call('POST', '/auth/key', {
      headers: { 'x-api-key': 'sk_test_nobody' },
      body: { data: { type: 'auth', attributes: { appId: creds.appId } } },
    });
    expectError(key, 401, 'invalid_api_key');
    const token = await stack.call('POST', '/auth/token', {
      headers: { 'x-api-key': creds.apiKey },
      body: { data: { type: 'auth', attributes: { appKey: 'ak_not_a_key' } } },
    });
    expectError(token, 401, 'invalid_app_key');
    expectError(
      await stack.call('GET', '/auth', { headers: { 'x-api-key': creds.apiKey } }),
      401,
      'missing_authorization',
    );
    expectError(await stack.call('GET', '/auth', { as: creds }), 429, 'too_many_failed_authentications');
  });

  it('keys a real connection by its remote address', async () => {
    await resetLimits(stack);
    const { server, port } = await listen(stack.gateway.fetch, 0, '127.0.0.1');
    try {
      const response = await fetch(`http://127.0.0.1:${port}/auth`, { headers: badToken(creds) });
      expect(response.status).toBe(401);
      await response.arrayBuffer();
    } finally {
      await closeServer(server);
    }
    expect(await redis.keys(`${stack.config.QUEUE_PREFIX}:rl:auth-failures:*`)).toEqual([
      `${stack.config.QUEUE_PREFIX}:rl:auth-failures:127.0.0.1`,
    ]);
    // In process there is no socket: those requests share one address of their own.
    expect((await stack.call('GET', '/auth', { as: creds })).status).toBe(200);
  });

  it('remembers an address under the limit for a second; one at the limit is asked again each time', async () => {
    await resetLimits(stack);
    const second = stack.anotherGateway();
    // The second gateway counts the address under the limit...
    expect((await request(second, '/auth', creds.headers)).status).toBe(200);
    // ...while the first counts it to the limit.
    for (let i = 0; i < 3; i++)
      expectError(await stack.call('GET', '/auth', { headers: badToken(creds) }), 401, 'invalid_token');
    expectError(await stack.call('GET', '/auth', { as: creds }), 429, 'too_many_failed_authentications');
    // Within the second, the second gateway takes what it knows (no Redis round trip per good request)...
    expect((await request(second, '/auth', creds.headers)).status).toBe(200);
    // ...unless it counts a failure itself, which brings the address's count back from Redis.
    expectError(await request(second, '/auth', badToken(creds)), 401, 'invalid_token');
    expect429(await request(second, '/auth', creds.headers), 'too_many_failed_authentications', 3, 60);

    // Unblocked in Redis (an operator deleting the key), an address at the limit is free at once.
    await resetLimits(stack);
    expect((await stack.call('GET', '/auth', { as: creds })).status).toBe(200);
    expect((await request(second, '/auth', creds.headers)).status).toBe(200);
  });

  it('a failure another gateway counts is seen within a second', async () => {
    await resetLimits(stack);
    const second = stack.anotherGateway();
    expect((await request(second, '/auth', creds.headers)).status).toBe(200);
    for (let i = 0; i < 3; i++)
      expectError(await stack.call('GET', '/auth', { headers: badToken(creds) }), 401, 'invalid_token');
    await sleep(1100);
    expect429(await request(second, '/auth', creds.headers), 'too_many_failed_authentications', 3, 60);
  });
});

describe('Redis down', () => {
  it('fails open: requests proceed, /readyz says failing open with 200, one warning is logged', async () => {
    const dead = new Redis('redis://127.0.0.1:1', { ...gatewayRedisOptions, maxRetriesPerRequest: 0 });
    dead.on('error', () => {});
    closing.push(() => dead.disconnect());
    const log = logTo();
    const stack = await stackWith({ RATE_LIMIT_RPS: '1', AUTH_FAILURE_LIMIT: '1' }, { redis: dead, log });
    const creds = await stack.createAccount();
    const started = performance.now();
    const responses = await Promise.all(Array.from({ length: 5 }, () => stack.call('GET', '/auth', { as: creds })));
    expect(responses.map((response) => response.status)).toEqual(Array(5).fill(200));
    expect(responses[0]!.headers.get('ratelimit-limit')).toBeNull();
    for (let i = 0; i < 3; i++)
      expectError(await stack.call('GET', '/auth', { headers: badToken(creds) }), 401, 'invalid_token');
    expect(performance.now() - started).toBeLessThan(3000);

    const ready = await stack.call('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toEqual({ database: 'ok', redis: 'unreachable', rateLimits: 'failing open' });
    const warnings = log.lines.filter((line) => line.level === 'warn' && /rate limits failing open/.test(line.msg));
    expect(warnings).toHaveLength(1);
  });

  it('does not stall on a Redis that accepts connections and never answers', async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    closing.push(
      () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy();
          silent.close(() => resolve());
        }),
    );
    const hung = new Redis(`redis://127.0.0.1:${(silent.address() as { port: number }).port}`, {
      ...gatewayRedisOptions,
      // Nothing is asked at connect, so the client is `ready` and each command then waits for an answer forever.
      enableReadyCheck: false,
      disableClientInfo: true,
    });
    hung.on('error', () => {});
    closing.push(() => hung.disconnect());
    await hung.connect();
    expect(hung.status).toBe('ready');

    const stack = await stackWith({ RATE_LIMIT_RPS: '5' }, { redis: hung });
    const creds = await stack.createAccount();
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      expect((await stack.call('GET', '/auth/token', { as: creds })).status).toBe(200);
      expect(performance.now() - started).toBeLessThan(1500);
    }
    expect((await stack.call('GET', '/readyz')).body.checks.rateLimits).toBe('failing open');
  });

  it('logs when Redis answers again and limits again', async () => {
    const late = new Redis(redisUrl, gatewayRedisOptions); // not connected yet
    late.on('error', () => {});
    closing.push(() => late.disconnect());
    const log = logTo();
    const stack = await stackWith({ RATE_LIMIT_RPS: '5' }, { redis: late, log });
    const creds = await stack.createAccount();
    expect((await stack.call('GET', '/auth', { as: creds })).headers.get('ratelimit-limit')).toBeNull();

    await late.connect();
    await sleep(1100); // while failing, Redis is tried again once a second
    const back = await stack.call('GET', '/auth', { as: creds });
    expect(back.status).toBe(200);
    expectLimitHeaders(back, 5);
    expect(log.lines.some((line) => line.level === 'info' && /rate limits enforced again/.test(line.msg))).toBe(true);
    expect((await stack.call('GET', '/readyz')).body.checks.rateLimits).toBe('ok');
  });
});
