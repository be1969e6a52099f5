import { integer, jsonb, pgTable } from 'drizzle-orm/pg-core';
import { ts } from './columns';

/** One BullMQ queue's figures at a sample: its job counts, and how long the job that has waited longest has waited. */
export type QueueSample = {
  queue: string;
  /** Waiting, delayed and prioritized: what `pps_queue_jobs` calls the queue's depth. */
  depth: number;
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  oldestWaitSeconds: number;
};

/**
 * The roles' lag, a row a minute (docs/design.md, The console, Health): each queue's counts and oldest job, and the
 * outbox relay's backlog, as Redis and PostgreSQL had them. Written by settlement's `health-sample` job, which also
 * removes the rows past two hours; the console's health page charts the last hour. Nothing else keeps a history of
 * these figures (`/metrics` answers the present only). A queue Redis did not answer for is absent from `queues`.
 */
export const healthSamples = pgTable('health_samples', {
  takenAt: ts('taken_at').primaryKey(),
  queues: jsonb('queues').$type<QueueSample[]>().notNull(),
  /** Events waiting for the relay (counted up to 10,001: past that the figure says "more than 10,000"). */
  outboxUnrelayed: integer('outbox_unrelayed').notNull(),
  /** The age of the oldest of them in seconds; 0 when none waits. */
  outboxLagSeconds: integer('outbox_lag_seconds').notNull(),
});

export type HealthSample = typeof healthSamples.$inferSelect;
