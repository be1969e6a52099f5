import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { testConfig } from '@pps/shared/config';
import { createLogger } from '@pps/shared/logger';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestStack, type TestStack } from '../harness';
import { freePort } from '../processes';
import { waitFor } from '../wait';

/**
 * The outbox relay and Redis's first connection: a process's relay runs its first rounds while its Redis client is
 * still connecting, and that is no outage to warn of (every `npm start` used to log `outbox relay round failed` with
 * "Stream isn't writeable"). Redis is reached through a proxy of the test's own that holds each new connection a
 * while before it passes it on, so the relay's first rounds surely meet a client still connecting; then the proxy
 * stops, an outage, which is still warned of. Each line is read as pino wrote it: a key written twice is visible
 * there (JSON.parse keeps the last).
 */

const CONNECT_DELAY_MS = 1500;
const redisUrl = new URL(testConfig().REDIS_URL);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A TCP proxy to the test Redis on `port`: each connection waits `delayMs` before it reaches Redis. */
function slowProxy(port: number, delayMs: number) {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  return {
    url: `redis://127.0.0.1:${port}`,
    start: () =>
      new Promise<void>((resolve) => {
        server = createServer((client) => {
          sockets.add(client);
          client.pause(); // what the client sends waits with it
          client.on('error', () => {});
          setTimeout(() => {
            const upstream = createConnection(Number(redisUrl.port || 6379), redisUrl.hostname);
            sockets.add(upstream);
            upstream.on('error', () => client.destroy());
            client.on('close', () => upstream.destroy());
            upstream.on('close', () => client.destroy());
            client.pipe(upstream).pipe(client);
            client.resume();
          }, delayMs);
        });
        server.listen(port, '127.0.0.1', resolve);
      }),
    /** Redis gone: every connection cut, none accepted. */
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        sockets.clear();
        if (!server) return resolve();
        server.close(() => resolve());
      }),
  };
}

const lines: string[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    done();
  },
});
const parsed = () => lines.map((line) => ({ raw: line, ...(JSON.parse(line) as { level: string; msg: string }) }));
const warnings = () => parsed().filter((line) => ['warn', 'error', 'fatal'].includes(line.level));

let stack: TestStack | undefined;
let proxy: ReturnType<typeof slowProxy>;
afterAll(async () => {
  // Redis back first, at once: the delivery workers' close waits on a connection that is still reconnecting.
  await proxy?.stop();
  proxy = slowProxy(Number(new URL(proxy.url).port), 0);
  await proxy.start();
  const redis = stack?.webhooks?.redis;
  if (redis) await waitFor(() => redis.status === 'ready', { what: "the workers' Redis back", timeoutMs: 10_000 });
  await stack?.close();
  await proxy.stop();
});

describe('the outbox relay while Redis connects, and when it goes', () => {
  it('says nothing above debug while the first connection is made, and warns of a real outage', async () => {
    proxy = slowProxy(await freePort(), CONNECT_DELAY_MS);
    await proxy.start();
    const started = Date.now();
    stack = await createTestStack({
      webhooks: true,
      env: { REDIS_URL: proxy.url, OUTBOX_POLL_INTERVAL_MS: '100' },
      log: createLogger({ level: 'debug', destination: sink }),
    });

    // Rounds run every 100 ms while the client connects: each says so at debug level, none warns.
    await waitFor(() => parsed().some((line) => /redis is still connecting/.test(line.msg)), {
      what: "the relay's round while Redis connects",
      timeoutMs: CONNECT_DELAY_MS,
    });
    await sleep(Math.max(0, started + CONNECT_DELAY_MS - 300 - Date.now()));
    expect(warnings().map((line) => line.raw)).toEqual([]);

    // Connected: the rounds reach Redis (the relay's marker key is set by a round that did).
    const redis = new Redis(testConfig().REDIS_URL);
    try {
      await waitFor(async () => (await redis.keys(`{${stack!.config.QUEUE_PREFIX}:webhooks}:*relay-marker`)).length, {
        what: 'a relay round that reached Redis',
        timeoutMs: CONNECT_DELAY_MS * 3,
      });
    } finally {
      redis.disconnect();
    }
    expect(warnings().map((line) => line.raw)).toEqual([]);

    // An outage after that is warned of, as before.
    await proxy.stop();
    const outage = await waitFor(() => warnings().find((line) => line.msg === 'outbox relay round failed; retrying'), {
      what: "the relay's warning of the outage",
      timeoutMs: 5000,
    });
    const failed = outage!; // waitFor returns once a line is found
    expect(failed.raw.match(/"module":/g)).toHaveLength(1);
    expect(JSON.parse(failed.raw).module).toBe('outbox-relay');

    // Every line names one module at most, the relay's debug lines too.
    for (const line of lines) expect(line.match(/"module":/g)?.length ?? 0, line).toBeLessThanOrEqual(1);
    const connecting = parsed().find((line) => /redis is still connecting/.test(line.msg));
    expect(JSON.parse(connecting!.raw).module).toBe('outbox-relay');
  }, 30_000);
});
