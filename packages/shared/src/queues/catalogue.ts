import { z } from 'zod';

/**
 * The typed job catalogue: each job has a queue, a name and a zod payload. Handlers are plain functions
 * `({ payload, attempt, log }) => Promise<void>` so they are tested without BullMQ. Payloads never
 * carry card data or secrets: ids only.
 */
export const queues = {
  maintenance: 'maintenance',
  settlement: 'settlement',
  webhooks: 'webhooks',
} as const;

export type QueueName = (typeof queues)[keyof typeof queues];

export const jobs = {
  idempotencyCleanup: {
    queue: queues.maintenance,
    name: 'idempotency-cleanup',
    payload: z.object({}).strict(),
  },
  /** Finishes new payments a crash left between their phases (`processing` too long): ids only, none in the payload. */
  paymentRecovery: {
    queue: queues.maintenance,
    name: 'payment-recovery',
    payload: z.object({}).strict(),
  },
  /**
   * Requests past the request log's 30 days removed, in batches: the gateway owns the log, which has no workers of
   * its own; settlement's maintenance worker runs it as it runs the idempotency-key cleanup for payments.
   */
  requestLogRetention: {
    queue: queues.maintenance,
    name: 'request-log-retention',
    payload: z.object({}).strict(),
  },
  /**
   * A minute's figures of the roles' lag (queue counts and oldest jobs, the outbox's backlog) kept for the console's
   * health charts, and the samples past two hours removed: run by settlement's maintenance worker for the gateway,
   * which owns the samples, as it runs the request log's retention.
   */
  healthSample: {
    queue: queues.maintenance,
    name: 'health-sample',
    payload: z.object({}).strict(),
  },
  /**
   * The settlement service's clock tick: what is due settles (payments' `runSettlement`), then the disputes of the
   * scope, and for one account (its clock moved) its payouts at once. Every account's (the scheduler), or one
   * account's. Named `settlement-pass` while it only settled: jobs and a scheduler of that name still run it.
   */
  clockTick: {
    queue: queues.settlement,
    name: 'clock-tick',
    formerNames: ['settlement-pass'],
    payload: z.object({ accountId: z.string().optional() }).strict(),
  },
  /**
   * The payout run after the day's settlement: every account's due merchants (the scheduler), or one account's.
   * On the settlement queue: it settles what is due first, and shares its workers and their shutdown.
   */
  payoutRun: {
    queue: queues.settlement,
    name: 'payout-run',
    payload: z.object({ accountId: z.string().optional() }).strict(),
  },
  /** One webhook delivery (ids only: the payload is read from the outbox, never carried in Redis). */
  webhookDelivery: {
    queue: queues.webhooks,
    name: 'webhook-delivery',
    payload: z.object({ deliveryId: z.string(), endpointId: z.string() }).strict(),
  },
  /** Events and their deliveries past EVENT_RETENTION_DAYS removed, in batches (the webhooks service owns them). */
  eventRetention: {
    queue: queues.webhooks,
    name: 'event-retention',
    payload: z.object({}).strict(),
  },
} as const;

export type JobName = keyof typeof jobs;
export type JobPayload<N extends JobName> = z.infer<(typeof jobs)[N]['payload']>;
