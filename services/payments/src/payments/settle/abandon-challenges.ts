import { accountClock } from '@pps/shared/clock';
import { type Db, schema, withTransaction } from '@pps/shared/db';
import { inArray } from 'drizzle-orm';
import { abandon } from '../authenticate/answer-challenge.usecases';
import { claimLapsedChallenges } from '../model/challenges';
import { lockPayments } from '../model/payments.repository';

const { accounts } = schema;

/**
 * One batch of 3-D Secure challenges nobody answered in 15 minutes, in one transaction (docs/design.md, 3-D Secure):
 * claims up to `limit` that the scope's clock has passed (deleted as they are claimed, `SKIP LOCKED`, so two workers
 * never take one and a cardholder answering one keeps it) and ends each payment `voided`, `authentication_abandoned`,
 * by its account's clock, with `payment.voided`. Nothing was authorized, so nothing is posted. A crash rolls the
 * batch back; the next tick takes it again.
 */
export async function abandonBatch(
  deps: { db: Db },
  input: { now: Date; limit: number; accountId?: string },
): Promise<{ claimed: number }> {
  return withTransaction(deps.db, async (tx) => {
    const clock = input.accountId ? await accountClock(tx, input.accountId, input.now) : input.now;
    if (!clock) return { claimed: 0 };
    const lapsed = await claimLapsedChallenges(tx, { clock, limit: input.limit, accountId: input.accountId });
    if (lapsed.length === 0) return { claimed: 0 };
    const offsets = new Map(
      (
        await tx
          .select({ id: accounts.id, offset: accounts.clockOffsetSeconds })
          .from(accounts)
          .where(inArray(accounts.id, [...new Set(lapsed.map((challenge) => challenge.accountId))]))
      ).map((row) => [row.id, row.offset]),
    );
    const waiting = await lockPayments(
      tx,
      lapsed.map((challenge) => challenge.paymentId),
    );
    for (const payment of waiting) {
      if (payment.status !== 'requires_action') continue;
      await abandon(tx, payment, new Date(input.now.getTime() + (offsets.get(payment.accountId) ?? 0) * 1000));
    }
    return { claimed: lapsed.length };
  });
}
