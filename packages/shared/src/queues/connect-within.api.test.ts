import { describe, expect, it } from 'vitest';
import { testConfig } from '../config';
import { freePort } from '../testing';
import { connectWithin, redisClient } from './redis';

describe('connectWithin', () => {
  it('resolves once Redis is ready: the first command finds it connected', async () => {
    const redis = redisClient(testConfig(), { maxRetriesPerRequest: 1, lazyConnect: true, enableOfflineQueue: false });
    let unreachable = false;
    await connectWithin(redis, 5000, () => {
      unreachable = true;
    });
    expect(redis.status).toBe('ready');
    expect(await redis.ping()).toBe('PONG');
    expect(unreachable).toBe(false);
    await redis.quit();
  });

  it('with Redis away, says so and resolves without waiting its time out', async () => {
    const port = await freePort();
    const redis = redisClient(
      { REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_CLUSTER_NODES: undefined },
      { maxRetriesPerRequest: 1, lazyConnect: true, enableOfflineQueue: false, retryStrategy: () => null },
    );
    redis.on('error', () => {});
    let unreachable = false;
    const started = Date.now();
    await connectWithin(redis, 10_000, () => {
      unreachable = true;
    });
    expect(unreachable).toBe(true);
    expect(Date.now() - started).toBeLessThan(5000);
    redis.disconnect();
  });
});
