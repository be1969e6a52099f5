import { idempotencyCleanup } from './idempotency-cleanup';
import type { JobHandlers } from './job-handler';
import { paymentRecovery } from './payment-recovery';
import { payoutRun } from './payout-run';
import { settlementPass } from './settlement-pass';
import { webhookDelivery } from './webhook-delivery';

/**
 * The handler of every job in the catalogue (`@pps/shared/queues`). Typed by the catalogue: a job added there
 * without a handler here, or a handler whose payload is not its job's, fails to compile.
 */
export const handlers: JobHandlers = {
  idempotencyCleanup,
  paymentRecovery,
  payoutRun,
  settlementPass,
  webhookDelivery,
};
