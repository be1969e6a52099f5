import type { JobHandler } from './index';

/** Removes idempotency keys older than IDEMPOTENCY_TTL_DAYS (DESIGN §8). Running it twice is harmless. */
export const idempotencyCleanup: JobHandler = async ({ deps, log }) => {
  const { deleteExpiredIdempotencyKeys } = await import('../../../payments/src/idempotency/idempotency.repository');
  const removed = await deleteExpiredIdempotencyKeys(deps.db, new Date(), deps.config.IDEMPOTENCY_TTL_DAYS);
  log.info({ removed }, 'expired idempotency keys removed');
};
