import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';

/** The Redis of tests and benches (REDIS_URL's, default the local one). */
export const testRedisUrl = () => process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A QUEUE_PREFIX for a stack or process a test or bench starts: `pps-<kind>-<runId>-<random>` (each queue adds its
 * hash tag around it: `{pps-…:settlement}`). The run id is the process that owns the run (vitest's main process, the
 * bench), so `removeQueueKeys` can find what a run left in Redis.
 */
export function queuePrefix(kind: string, runId: string): string {
  return `pps-${kind}-${runId}-${randomBytes(4).toString('hex')}`;
}

/** A key of a run: a queue's (`{pps-…-<runId>-…:<queue>}:…`) or a rate-limit counter (`pps-…-<runId>-…:rl:…`). */
const RUN_KEY = /^\{?pps-[a-z]+-(\d+)-[0-9a-f]+[:}]/;

/**
 * Deletes the keys (BullMQ's queues and jobs, rate-limit counters) under every `queuePrefix` whose run `match`
 * picks, read with SCAN; other keys are never touched. Returns how many were deleted.
 */
export async function removeQueueKeys(redisUrl: string, match: (runId: string) => boolean): Promise<number> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let removed = 0;
    for await (const keys of redis.scanStream({ match: '*pps-*', count: 1000 })) {
      const theirs = (keys as string[]).filter((key) => {
        const run = RUN_KEY.exec(key)?.[1];
        return run !== undefined && match(run);
      });
      if (theirs.length > 0) removed += await redis.unlink(...theirs);
    }
    return removed;
  } finally {
    redis.disconnect();
  }
}
