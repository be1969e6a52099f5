import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { type processTracker, stopProcess } from './processes';
import { waitFor } from './wait';

/**
 * A Redis of a test's own on `port` (Debian's `redis-server`, nothing kept on disk): `start` it, `stop` it (SIGKILL)
 * and start it again on the same port; `pid` is its process while it runs, for a test that freezes it.
 */
export function privateRedis(processes: ReturnType<typeof processTracker>, port: number) {
  let child: ChildProcess | undefined;
  const url = `redis://127.0.0.1:${port}`;
  return {
    url,
    pid: () => child?.pid,
    start: async () => {
      child = processes.spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '']);
      await waitFor(
        async () => {
          const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
          client.on('error', () => {});
          try {
            await client.connect();
            return (await client.ping()) === 'PONG';
          } finally {
            client.disconnect();
          }
        },
        { what: `redis-server on ${port}`, retryOnError: true, timeoutMs: 10_000 },
      );
    },
    stop: async () => {
      if (child) await stopProcess(child, 'SIGKILL');
    },
  };
}

export type PrivateRedis = ReturnType<typeof privateRedis>;
