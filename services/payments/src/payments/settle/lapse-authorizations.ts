import { type Db, withTransaction } from '@pps/shared/db';
import { writeEvents } from '@pps/shared/events';
import { lapseAuthorizations } from '../model/payment-transition';
import { paymentResource } from '../model/payments.presenter';
import { claimLapsedAuthorizations } from './settle.repository';

/**
 * One batch of lapsed authorizations, in one transaction (docs/design.md, Authorize now, capture later): claims up
 * to `limit` whose `authorizationExpiresAt` the clock has passed and voids them (`voidReason`
 * `authorization_expired`, `voidedAt` by each account's clock), with `payment.voided` for each. An authorization
 * moved no money, so nothing is posted. A crash rolls the batch back; the next pass takes it again.
 */
export async function lapseBatch(
  deps: { db: Db },
  input: { now: Date; limit: number; accountId?: string },
): Promise<{ claimed: number }> {
  return withTransaction(deps.db, async (tx) => {
    const lapsed = await claimLapsedAuthorizations(tx, input);
    const items = lapsed.map(({ payment, clockOffsetSeconds }) => ({
      payment,
      at: new Date(input.now.getTime() + clockOffsetSeconds * 1000),
    }));
    const voided = await lapseAuthorizations(tx, items);
    await writeEvents(
      tx,
      voided.map((payment, index) => ({
        accountId: payment.accountId,
        type: 'payment.voided' as const,
        // An authorization has no children: a capture or a cancel would have ended it.
        resource: paymentResource(payment, [], items[index]!.at),
        previousStatus: 'authorized' as const,
      })),
    );
    return { claimed: lapsed.length };
  });
}
