import { recoverAuthenticated, recoverPayments } from '@pps/payments';
import type { JobHandler } from './job-handler';

/**
 * Every minute: new payments a crash left `processing` longer than PAYMENT_RECOVERY_AFTER_SECONDS, and payments
 * authenticated by their 3-D Secure challenge it left so, are finished by the processor's answer, else failed
 * (docs/design.md, Failure behaviour). This process's processor is asked: the
 * sandbox remembers only its own process's answers, so here it knows none and such records fail
 * `processing_abandoned`; a real acquirer's connector answers from the acquirer's records. Running it twice is
 * harmless: records are claimed with SKIP LOCKED and finished only while still `processing`.
 */
export const paymentRecovery: JobHandler<'paymentRecovery'> = async ({ deps, log, signal }) => {
  await recoverPayments({ ...deps, log }, { now: new Date(), signal });
  if (!signal.aborted) await recoverAuthenticated({ ...deps, log }, { now: new Date(), signal });
};
