import type { JobHandler } from './job-handler';
import { payScope, settleScope } from './scope-runs';

/**
 * The payout run (docs/design.md, Payouts), for every account (the scheduler) or one: the day's settlement first,
 * then payouts made, filed and advanced. Idempotent: schedules and payouts are claimed with SKIP LOCKED and
 * written conditionally, so a retried or doubled job pays nobody twice.
 */
export const payoutRun: JobHandler<'payoutRun'> = async (input) => {
  await settleScope(input);
  if (!input.signal.aborted) await payScope(input);
};
