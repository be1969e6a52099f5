import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** One registry per process (tests build several apps, so nothing registers globally). */
export function createMetrics(options: { defaultMetrics?: boolean } = {}) {
  const registry = new Registry();
  if (options.defaultMetrics) collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpDuration: new Histogram({
      name: 'pps_http_request_duration_seconds',
      help: 'HTTP request duration by route and status',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    payments: new Counter({
      name: 'pps_payments_total',
      help: 'Payments created, by type and outcome',
      labelNames: ['type', 'outcome'] as const,
      registers: [registry],
    }),
    groupCommitBatch: new Histogram({
      name: 'pps_group_commit_batch_size',
      help: "Requests per group-committed transaction, by phase (claim: a new payment's key and record; outcome: the processor's answer; operation: a capture, refund, split refund or second split)",
      labelNames: ['phase'] as const,
      buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
      registers: [registry],
    }),
    settlementPassDuration: new Histogram({
      name: 'pps_settlement_pass_duration_seconds',
      help: 'Duration of settlement passes',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    settlementRecords: new Counter({
      name: 'pps_settlement_records_total',
      help: 'Records settled, ACH debits returned and authorizations voided as lapsed, by settlement passes',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    payouts: new Counter({
      name: 'pps_payouts_total',
      help: 'Payouts made by the payout run, and payouts it ended paid or failed',
      labelNames: ['status'] as const,
      registers: [registry],
    }),
    payoutAmount: new Counter({
      name: 'pps_payout_amount_cents_total',
      help: 'Cents of the payouts counted in pps_payouts_total, by the same status',
      labelNames: ['status'] as const,
      registers: [registry],
    }),
    webhookDeliveries: new Counter({
      name: 'pps_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome: succeeded, retried, failed (for good), skipped (nothing to send)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    webhookFirstAttempts: new Counter({
      name: 'pps_webhook_first_attempts_total',
      help:
        "Deliveries' first attempts by way: direct (made by the relay's process), handed_off (to a job: a slow " +
        'endpoint, a long wait, the database away), reclaimed (a lapsed lease given a job by the sweep)',
      labelNames: ['way'] as const,
      registers: [registry],
    }),
    webhookAttemptDuration: new Histogram({
      name: 'pps_webhook_attempt_duration_seconds',
      help: "Webhook delivery attempts' duration, request to the receiver's answer (or the timeout)",
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    webhookLag: new Histogram({
      name: 'pps_webhook_delivery_lag_seconds',
      help: "From an event's commit to its receiver's 2xx, retries included",
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600],
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
