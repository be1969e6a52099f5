import { createServer, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { CHECK_TIMEOUT_MS, checkReadiness, readinessResponse, redisCheck } from './readiness';

/** `/readyz`'s checks: the verdict, and an answer within a second whatever a dependency does. */

const never = () => new Promise<string>(() => {});
const closing: (() => unknown)[] = [];
afterAll(async () => {
  for (const close of closing.reverse()) await close();
});

describe('checkReadiness', () => {
  it('is ready when every required check says ok, whatever the reported ones say', async () => {
    const readiness = await checkReadiness({
      required: { database: async () => 'ok' },
      reported: { redis: async () => 'unreachable' },
    });
    expect(readiness).toEqual({ status: 'ready', checks: { database: 'ok', redis: 'unreachable' } });
    const response = readinessResponse(readiness);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(readiness);
  });

  it('is not ready, 503, when a required check fails, throws or says something else', async () => {
    const readiness = await checkReadiness({
      required: {
        database: async () => 'migrations pending',
        redis: async () => {
          throw new Error('ECONNREFUSED 10.0.0.7:6379');
        },
      },
    });
    // What went wrong is a state, never the error's text (the route needs no credentials).
    expect(readiness).toEqual({
      status: 'not ready',
      checks: { database: 'migrations pending', redis: 'unreachable' },
    });
    expect(readinessResponse(readiness).status).toBe(503);
  });

  it('answers within a second while checks hang, each one unreachable after CHECK_TIMEOUT_MS', async () => {
    const started = performance.now();
    const readiness = await checkReadiness({
      required: { database: never, redis: never },
      reported: { other: never },
    });
    const ms = performance.now() - started;
    expect(readiness).toEqual({
      status: 'not ready',
      checks: { database: 'unreachable', redis: 'unreachable', other: 'unreachable' },
    });
    expect(ms).toBeGreaterThanOrEqual(CHECK_TIMEOUT_MS - 5);
    expect(ms).toBeLessThan(1000);
  });
});

describe('redisCheck', () => {
  it('says unreachable at once, sending nothing, while the client is not connected', async () => {
    const idle = new Redis('redis://127.0.0.1:1', { lazyConnect: true, maxRetriesPerRequest: null });
    idle.on('error', () => {});
    closing.push(() => idle.disconnect());
    const started = performance.now();
    expect(await redisCheck(idle)()).toBe('unreachable');
    expect(performance.now() - started).toBeLessThan(50);
    expect(idle.status).toBe('wait'); // not even a connection attempt
  });

  it('says unreachable within the bound when Redis accepts the connection and never answers', async () => {
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
      lazyConnect: true,
      // Nothing is asked at connect, so the client is `ready` and PING then waits for an answer forever.
      enableReadyCheck: false,
      disableClientInfo: true,
    });
    hung.on('error', () => {});
    closing.push(() => hung.disconnect());
    await hung.connect();
    const started = performance.now();
    const readiness = await checkReadiness({ required: { redis: redisCheck(hung) } });
    expect(readiness.checks.redis).toBe('unreachable');
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
