import { Gauge } from 'prom-client';
import type { Metrics } from './metrics';

/** What the queue gauges need of a BullMQ queue (kept structural, so this module does not import BullMQ). */
export type CountableQueue = {
  name: string;
  getJobCounts(...states: string[]): Promise<Record<string, number>>;
};

const STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed', 'completed', 'paused'] as const;
const TIMEOUT_MS = 500;

/**
 * `pps_queue_jobs{queue,state}`: job counts read from Redis at scrape time. With Redis down the scrape still
 * answers (the gauge is left out) rather than hang: Redis is not needed to serve payments.
 */
export function registerQueueMetrics(metrics: Metrics, queues: CountableQueue[]): void {
  new Gauge({
    name: 'pps_queue_jobs',
    help: 'BullMQ jobs by queue and state (queue depth is waiting + delayed + prioritized)',
    labelNames: ['queue', 'state'] as const,
    registers: [metrics.registry],
    // Every cluster worker reads the same Redis counts: summing them would multiply the depth by the workers.
    aggregator: 'first',
    async collect() {
      this.reset();
      await Promise.all(
        queues.map(async (queue) => {
          let timer: NodeJS.Timeout | undefined;
          const timeout = new Promise<null>((resolve) => {
            timer = setTimeout(() => resolve(null), TIMEOUT_MS);
          });
          const counts = await Promise.race([queue.getJobCounts(...STATES).catch(() => null), timeout]);
          clearTimeout(timer);
          if (!counts) return;
          for (const state of STATES) this.set({ queue: queue.name, state }, counts[state] ?? 0);
        }),
      );
    },
  });
}
