import Redis from 'ioredis';

/** BullMQ needs `maxRetriesPerRequest: null` so workers wait out a Redis outage instead of failing. */
export const redisConnection = (url: string) => {
  const connection = new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true });
  connection.on('error', () => {});
  return connection;
};
