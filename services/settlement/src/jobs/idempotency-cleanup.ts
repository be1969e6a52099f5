import { deleteExpiredIdempotencyKeys } from '@pps/payments';
import type { JobHandler } from './job-handler';

/** Removes idempotency keys older than IDEMPOTENCY_TTL_DAYS (docs/design.md). Running it twice is harmless. */
export const idempotencyCleanup: JobHandler<'idempotencyCleanup'> = async ({ deps, log }) => {
  const removed = await deleteExpiredIdempotencyKeys(deps.db, new Date(), deps.config.IDEMPOTENCY_TTL_DAYS);
  log.info({ removed }, 'expired idempotency keys removed');
};
