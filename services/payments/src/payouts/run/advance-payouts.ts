import type { CalendarDate } from '@pps/shared/clock';
import type { FieldCipher } from '@pps/shared/crypto';
import type { DbOrTx } from '@pps/shared/db';
import { schema } from '@pps/shared/db';

import { writeEvents } from '@pps/shared/events';
import { type PostInput, payoutDepositLines, payoutFailureLines, postMany } from '@pps/shared/ledger';
import { and, asc, eq, isNotNull, lte } from 'drizzle-orm';
import type { ReturnedCredit } from '../../processor/processor';
import { inScope, type PayoutScope } from './due-schedules';
import { payoutResource } from './payout-resource';
import { type PayoutChange, transitionPayouts } from './payout-transition';

const { merchantBankAccounts, payouts } = schema;
type Payout = schema.Payout;

/**
 * Whoever says what became of deposits on their arrival date: the processor (the sandbox decides by account). It
 * answers the returns among these credits, each naming its entry by trace number; a credit with none arrived.
 */
export type PayoutBank = {
  payoutReturns(credits: { traceNumber: string; accountNumber: string }[]): ReturnedCredit[];
};

export type AdvancedPayouts = { paid: Payout[]; failed: Payout[] };

/**
 * Ends up to `limit` pending payouts of the scope that are filed and due (`arrival_date ≤ today`, the scope's
 * Pacific date), in the caller's transaction, as the bank answers for each deposit: `paid` posts `payout_deposit`
 * (in transit → the bank; its `payout` balance transaction); returned, `failed` with the return's code and
 * message posts `payout_deposit` then `payout_failure` (the money back in available, a `payout_failure` balance
 * transaction the next payout carries). A return is matched to its payout by the trace number it names (the one
 * the payout's entry has in its file, unique across files). Status changes go through the payout state table, conditional on the
 * status read; `payout.paid` / `payout.failed` go to the outbox. `FOR UPDATE SKIP LOCKED`: no payout ends twice.
 */
export async function advancePayouts(
  tx: DbOrTx,
  deps: { cipher: FieldCipher; bank: PayoutBank },
  input: { scope: PayoutScope; today: CalendarDate; now: Date; limit: number },
): Promise<AdvancedPayouts> {
  const rows = await tx
    .select({ payout: payouts, accountNumberEnc: merchantBankAccounts.accountNumberEnc })
    .from(payouts)
    .innerJoin(merchantBankAccounts, eq(merchantBankAccounts.id, payouts.bankAccountId))
    .where(
      and(
        eq(payouts.status, 'pending'),
        lte(payouts.arrivalDate, input.today),
        isNotNull(payouts.achFileId),
        inScope(payouts.accountId, input.scope),
      ),
    )
    .orderBy(asc(payouts.arrivalDate), asc(payouts.id))
    .limit(input.limit)
    .for('update', { of: payouts, skipLocked: true });
  if (rows.length === 0) return { paid: [], failed: [] };

  const credits = rows.map(({ payout, accountNumberEnc }) => {
    if (payout.traceNumber === null) throw new Error(`filed payout ${payout.id} has no trace number`);
    return { payout, traceNumber: payout.traceNumber, accountNumber: deps.cipher.decrypt(accountNumberEnc) };
  });
  const returns = new Map(
    deps.bank
      .payoutReturns(credits.map(({ traceNumber, accountNumber }) => ({ traceNumber, accountNumber })))
      .map(({ traceNumber, code, message }) => [traceNumber, { code, message }]),
  );
  const changes: PayoutChange[] = credits.map(({ payout, traceNumber }) => {
    const returned = returns.get(traceNumber);
    return returned
      ? { payout, to: 'failed', at: input.now, failure: returned }
      : { payout, to: 'paid', at: input.now };
  });
  const updated = await transitionPayouts(tx, changes);
  const postings: PostInput[] = [];
  for (const payout of updated) {
    const money = { merchantId: payout.merchantId, amount: payout.amount };
    const posting = {
      accountId: payout.accountId,
      paymentId: payout.id,
      merchantId: payout.merchantId,
      now: input.now,
    };
    // A debit's money arriving from the bank is the merchant's `negative_balance_debit` balance transaction.
    const kind = payout.amount < 0 ? 'negative_balance_debit' : 'payout_deposit';
    postings.push({ ...posting, kind, lines: payoutDepositLines(money) });
    if (payout.status === 'failed')
      postings.push({ ...posting, kind: 'payout_failure', lines: payoutFailureLines(money) });
  }
  await postMany(tx, postings);
  await writeEvents(
    tx,
    updated.map((payout) => ({
      accountId: payout.accountId,
      type: payout.status === 'paid' ? ('payout.paid' as const) : ('payout.failed' as const),
      resource: payoutResource(payout),
      previousStatus: 'pending',
    })),
  );
  return {
    paid: updated.filter((payout) => payout.status === 'paid'),
    failed: updated.filter((payout) => payout.status === 'failed'),
  };
}
