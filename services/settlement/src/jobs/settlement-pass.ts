import type { JobHandler } from './job-handler';
import { payScope, settleScope } from './scope-runs';

/**
 * Settles what is due (docs/design.md), for one account when its sandbox clock moved, else for every account.
 * Idempotent: records are claimed with SKIP LOCKED and settled conditionally, so a retried or doubled job
 * settles nothing twice. For one account it then runs that account's payouts (made, filed, advanced), so a moved
 * clock pays out at once rather than at the next scheduled payout run.
 */
export const settlementPass: JobHandler<'settlementPass'> = async (input) => {
  await settleScope(input);
  if (input.payload.accountId && !input.signal.aborted) await payScope(input);
};
