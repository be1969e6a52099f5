import type { Db } from '@pps/shared/db';
import type { Metrics } from '@pps/shared/metrics';
import { sql } from 'drizzle-orm';
import { Gauge } from 'prom-client';

const NAME = 'pps_webhook_oldest_undelivered_seconds';

/**
 * `pps_webhook_oldest_undelivered_seconds`: the age of the oldest event still on its way, waiting for the relay or
 * with a delivery pending (retries included), read from PostgreSQL at scrape time; 0 when none. What to alert on: it
 * grows when deliveries fall behind, whatever the reason (a slow receiver, Redis away, too few webhooks processes).
 */
export function registerWebhookMetrics(metrics: Metrics, db: Db): void {
  if (metrics.registry.getSingleMetric(NAME)) return;
  new Gauge({
    name: NAME,
    help: 'Age of the oldest event not delivered yet (waiting for the relay, or a delivery pending), 0 when none',
    registers: [metrics.registry],
    // Every cluster worker reads the same database: the oldest is the oldest, not a sum.
    aggregator: 'max',
    async collect() {
      // Left out of the scrape when the database does not answer, rather than reported as nothing behind.
      this.reset();
      const [row] = await db
        .execute<{ age: number | null }>(sql`
          select extract(epoch from now() - least(
            (select min(e.created_at) from unrelayed_events u join events e on e.id = u.event_id),
            (select min(created_at) from webhook_deliveries where status = 'pending')
          ))::float8 as age`)
        .catch(() => [undefined]);
      if (row) this.set(Math.max(0, row.age ?? 0));
    },
  });
}
