import { Queue } from 'bullmq';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { type QueueName, queues } from './catalogue';
import { defaultJobOptions, enqueue } from './enqueue';
import { queuePrefixOf, redisClient } from './redis';

/** How long a clock move waits for Redis before answering anyway (the minute scheduler catches up). */
const ENQUEUE_TIMEOUT_MS = 1000;

/**
 * Enqueues a clock tick for one account (its settlement, disputes and payouts), for the gateway when an account's sandbox clock moves. Never
 * fails the caller: with Redis down the request answers at once and the scheduled pass settles the records.
 * It only enqueues, so whoever calls it needs the catalogue, not the settlement workers.
 */
export function createSettlementTrigger(config: Config, log: Logger) {
  const connection = redisClient(config, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  connection.on('error', () => {});
  const queueOf = (name: QueueName) => {
    const queue = new Queue(name, { connection, prefix: queuePrefixOf(config, name), defaultJobOptions });
    queue.on('error', () => {});
    return queue;
  };
  const queue = queueOf(queues.settlement);
  const maintenance = queueOf(queues.maintenance);
  const webhooks = queueOf(queues.webhooks);
  return {
    async settleAccount(accountId: string): Promise<void> {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('redis did not answer')), ENQUEUE_TIMEOUT_MS);
      });
      try {
        await Promise.race([enqueue(queue, 'clockTick', { accountId }), timeout]);
      } catch (error) {
        log.warn(
          { accountId, err: (error as Error).message },
          'settlement pass not enqueued; the scheduler will run it',
        );
      } finally {
        clearTimeout(timer);
      }
    },
    /** The settlement, maintenance and webhooks queues, for the gateway's queue board and gauges. */
    queues: [queue, maintenance, webhooks],
    close: async () => {
      await Promise.all([queue.close(), maintenance.close(), webhooks.close()]).catch(() => {});
      await connection.quit().catch(() => {});
    },
  };
}

export type SettlementTrigger = ReturnType<typeof createSettlementTrigger>;
