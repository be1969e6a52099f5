import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { Config } from '../config';
import type { QueueName } from './catalogue';

/** A Redis client: one server's, or a Redis Cluster's (REDIS_CLUSTER_NODES). */
export type RedisClient = Redis | Cluster;

type RedisConfig = Pick<Config, 'REDIS_URL' | 'REDIS_CLUSTER_NODES'>;

/**
 * The one way the platform makes a Redis client (docs/design.md, Past one machine): to REDIS_URL, or, when
 * REDIS_CLUSTER_NODES names a cluster's nodes, a cluster client over them with `options` for each node (REDIS_URL's
 * user and password included). Errors are the caller's to watch; this one swallows none.
 */
export function redisClient(config: RedisConfig, options: RedisOptions = {}): RedisClient {
  if (!config.REDIS_CLUSTER_NODES) return new Redis(config.REDIS_URL, options);
  const url = new URL(config.REDIS_URL);
  const auth = {
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
  };
  const nodes = config.REDIS_CLUSTER_NODES.split(',').map((node) => {
    const [host, port] = node.split(':');
    return { host: host!, port: Number(port) };
  });
  const { enableOfflineQueue, ...perNode } = options;
  return new Cluster(nodes, {
    redisOptions: { ...auth, ...perNode },
    ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
    // A master that fails over is found again from the slots its replica now serves.
    slotsRefreshTimeout: 2000,
  });
}

/** BullMQ needs `maxRetriesPerRequest: null` so workers wait out a Redis outage instead of failing. */
export const redisConnection = (config: RedisConfig): RedisClient => {
  const connection = redisClient(config, { maxRetriesPerRequest: null, enableReadyCheck: true });
  connection.on('error', () => {});
  return connection;
};

/**
 * A queue's BullMQ prefix: its own hash tag (`{pps:settlement}`), so every key of the queue lands in one slot of a
 * Redis Cluster (BullMQ's scripts need that) and each queue may land on another node.
 */
export const queuePrefixOf = (config: Pick<Config, 'QUEUE_PREFIX'>, queue: QueueName) =>
  `{${config.QUEUE_PREFIX}:${queue}}`;

/**
 * Connects a client made with `lazyConnect` and waits until it is ready, for at most `ms`: a process that serves
 * requests at once (`npm start`'s demo account calls its own API as soon as it listens) finds its Redis connected, and
 * one whose Redis is away starts all the same, `onUnreachable` told when the first attempt fails.
 */
export async function connectWithin(redis: RedisClient, ms: number, onUnreachable: () => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([redis.connect().catch(onUnreachable), waited]);
  clearTimeout(timer);
}
