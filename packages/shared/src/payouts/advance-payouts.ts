import { and, asc, eq, isNotNull, lte } from 'drizzle-orm';
import type { CalendarDate } from '../clock/calendar-date';
import type { FieldCipher } from '../crypto';
import type { DbOrTx } from '../db/client';
import { merchantBankAccounts } from '../db/schema/merchants';
import { type Payout, payouts } from '../db/schema/payouts';
import { writeEvents } from '../events/outbox';
import { type PostInput, postMany } from '../ledger/ledger';
import { payoutDepositLines, payoutFailureLines } from '../ledger/lines';
import { type PayoutChange, transitionPayouts } from '../states/payout-transition';
import { inScope, type PayoutScope } from './due-schedules';
import { payoutResource } from './payout-resource';

/** The bank's answer to a payout's deposit: null when it arrived, else the return's NACHA code and message. */
export type PayoutReturn = { code: string; message: string };

/** Whoever says what became of a deposit on its arrival date: the processor (the sandbox decides by account). */
export type PayoutBank = { payoutReturn(input: { accountNumber: string }): PayoutReturn | null };

export type AdvancedPayouts = { paid: Payout[]; failed: Payout[] };

/**
 * Ends up to `limit` pending payouts of the scope that are filed and due (`arrival_date ≤ today`, the scope's
 * Pacific date), in the caller's transaction, as the bank answers for each deposit: `paid` posts `payout_deposit`
 * (in transit → the bank; its `payout` balance transaction); returned, `failed` with the return's code and
 * message posts `payout_deposit` then `payout_failure` (the money back in available, a `payout_failure` balance
 * transaction the next payout carries). Status changes go through the payout state table, conditional on the
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

  const changes: PayoutChange[] = rows.map(({ payout, accountNumberEnc }) => {
    const returned = deps.bank.payoutReturn({ accountNumber: deps.cipher.decrypt(accountNumberEnc) });
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
    postings.push({ ...posting, kind: 'payout_deposit', lines: payoutDepositLines(money) });
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
