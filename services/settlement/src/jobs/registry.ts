import { clockTick } from './clock-tick';
import { healthSample } from './health-sample';
import { idempotencyCleanup } from './idempotency-cleanup';
import type { JobHandlers } from './job-handler';
import { paymentRecovery } from './payment-recovery';
import { payoutRun } from './payout-run';
import { requestLogRetention } from './request-log-retention';

/**
 * The handler of every job of the settlement service's queues in the catalogue (`@pps/shared/queues`). Typed by the
 * catalogue: a job added to them without a handler here, or a handler whose payload is not its job's, fails to
 * compile. The webhooks queue's job is the webhooks service's.
 */
export const handlers: JobHandlers = {
  clockTick,
  healthSample,
  idempotencyCleanup,
  paymentRecovery,
  payoutRun,
  requestLogRetention,
};
