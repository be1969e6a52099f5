import { accountClock } from '@pps/shared/clock';
import type { Config } from '@pps/shared/config';
import { type Db, schema } from '@pps/shared/db';
import type { Logger } from '@pps/shared/logger';
import { PROCESSING } from '@pps/shared/states';
import { and, asc, eq, lt } from 'drizzle-orm';
import type { Processor } from '../../processor/processor';
import { recordAuthorization } from './answer-challenge.usecases';

const { payments } = schema;

/** Payments resolved per round. */
const RECOVERY_BATCH = 100;

/**
 * The other half of the recovery job (docs/design.md, Failure behaviour): payments whose cardholder completed the
 * 3-D Secure challenge and which a crash left `processing` (authenticated, not yet authorized) for longer than
 * PAYMENT_RECOVERY_AFTER_SECONDS, real time, read along `payments_processing_idx`. Each is finished by the
 * processor's answer, asked again by its id (an authorization it gave is recorded as phase 3 would have), else failed
 * `processing_abandoned`: the processor never authorized it. Recorded under the payment's row lock and only while it
 * is still `processing`, so a request finishing it meanwhile, or another worker, records it once.
 */
export async function recoverAuthenticated(
  deps: { db: Db; config: Config; log: Logger; processor: Processor },
  options: { now: Date; signal?: AbortSignal },
): Promise<{ recorded: number; abandoned: number }> {
  const cutoff = new Date(options.now.getTime() - deps.config.PAYMENT_RECOVERY_AFTER_SECONDS * 1000);
  const stuck = await deps.db
    .select({ id: payments.id, accountId: payments.accountId })
    .from(payments)
    .where(and(eq(payments.status, PROCESSING), lt(payments.processingSince, cutoff)))
    .orderBy(asc(payments.processingSince), asc(payments.id))
    .limit(RECOVERY_BATCH);
  const totals = { recorded: 0, abandoned: 0 };
  for (const { id, accountId } of stuck) {
    if (options.signal?.aborted) break;
    const answer = await deps.processor.lookup(id);
    const authorized = answer?.rail === 'card' && 'authorization' in answer ? answer : null;
    const now = (await accountClock(deps.db, accountId, options.now)) ?? options.now;
    await recordAuthorization(deps.db, deps.config, id, authorized, now);
    if (authorized) totals.recorded += 1;
    else totals.abandoned += 1;
  }
  if (totals.recorded + totals.abandoned > 0) deps.log.warn(totals, 'authenticated payments left processing recovered');
  return totals;
}
