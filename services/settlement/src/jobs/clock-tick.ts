import type { JobHandler } from './job-handler';
import { disputeScope, payScope, settleScope } from './scope-runs';

/**
 * Settles what is due (docs/design.md), for one account when its sandbox clock moved, else for every account.
 * Idempotent: records are claimed with SKIP LOCKED and settled conditionally, so a retried or doubled job
 * settles nothing twice. Then the disputes of the scope (the network's new ones, and those the clock has reached);
 * for one account then that account's payouts (made, filed, advanced), so a moved clock disputes and pays out at
 * once rather than at the next scheduled pass.
 */
export const clockTick: JobHandler<'clockTick'> = async (input) => {
  await settleScope(input);
  if (!input.signal.aborted) await disputeScope(input);
  if (input.payload.accountId && !input.signal.aborted) await payScope(input);
};
