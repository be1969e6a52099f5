import { groupBy } from '@pps/shared/collections';
import type { Db, DbOrTx, Tx } from '@pps/shared/db';
import { withTransaction } from '@pps/shared/db';
import { writeEvent, writeEvents } from '@pps/shared/events';
import { makeAvailable, post, postMany, reverseLines, settlementLines } from '@pps/shared/ledger';
import type { AchReturn, Processor } from '../../processor/processor';
import { settlePayments, transitionPayment } from '../model/payment-transition';
import { paymentResource } from '../model/payments.presenter';
import { captureEntries, childrenOf, claimDueRecords, type Payment, pendingHeld } from './settle.repository';

/** One record a batch settled: as claimed, as settled, what it moved from pending to available, and when. */
export type SettledRecord = {
  claimed: Payment;
  settled: Payment;
  moved: { merchantId: string; amount: number }[];
  at: Date;
};

/**
 * What the settlement service records of each batch, in the batch's transaction (its day's settlement batches, its
 * ACH file): the records settled and the scope's clock. Answers the ACH file written, if any.
 */
export type RecordSettled = (
  tx: Tx,
  batch: { settled: SettledRecord[]; clock: Date; now: Date },
) => Promise<{ achFileId: string | null }>;

export type SettleBatchDeps = { db: Db; processor: Processor; recordSettled: RecordSettled };
export type BatchResult = { claimed: number; settled: number; returned: number; achFileId: string | null };

const isParent = (payment: Payment) => payment.parentPaymentId === null;
/** Children settled with their parent: second splits, completed at once, whose moves sit in pending until then. */
const carried = (child: Payment) => child.paymentType === 'secondSplit' && child.settleAt === null;

/**
 * One settlement batch, in one transaction (docs/design.md): claims up to `limit` due records and settles them
 * through the state table (`pending → completed`; a refunded parent keeps its status and records `settledAt`),
 * or, for an ACH debit the bank returns, fails it with its R-code and reverses its capture. What each record left
 * in merchants' pending balances becomes available; `payment.completed` / `payment.failed` go to the outbox; then
 * the settlement service records the batch (`recordSettled`: its day's totals, the NACHA file of its ACH records).
 * Set-based: a handful of statements per batch, whatever its size. A crash anywhere rolls the whole batch back.
 */
export async function settleBatch(
  deps: SettleBatchDeps,
  input: { now: Date; limit: number; accountId?: string },
): Promise<BatchResult> {
  return withTransaction(deps.db, async (tx) => {
    const { clock, due } = await claimDueRecords(tx, input);
    const result: BatchResult = { claimed: due.length, settled: 0, returned: 0, achFileId: null };
    if (!clock || due.length === 0) return result;

    const parentIds = due.filter((d) => isParent(d.payment)).map((d) => d.payment.id);
    const children = groupBy(await childrenOf(tx, parentIds), (child) => child.parentPaymentId!);
    const carriedIds = [...children.values()]
      .flat()
      .filter(carried)
      .map((child) => child.id);
    const dueIds = due.map((d) => d.payment.id);
    const held = groupBy(await pendingHeld(tx, [...dueIds, ...carriedIds]), (row) => row.paymentId);

    const toSettle: { payment: Payment; at: Date }[] = [];
    for (const { payment, clockOffsetSeconds } of due) {
      const at = new Date(input.now.getTime() + clockOffsetSeconds * 1000);
      const achReturn = payment.paymentType === 'ACH' ? deps.processor.achReturnAtSettlement(payment) : null;
      if (achReturn) {
        await returnAch(tx, payment, achReturn, at);
        result.returned += 1;
      } else toSettle.push({ payment, at });
    }

    const settled = await settlePayments(tx, toSettle);
    const records: SettledRecord[] = [];
    const postings = [];
    const events = [];
    const madeAvailable = [];
    for (const [index, { payment: updated, statusChanged }] of settled.entries()) {
      const { payment, at } = toSettle[index]!;
      const kids = children.get(payment.id) ?? [];
      const family = [payment, ...kids.filter(carried)];
      const moved = mergeByMerchant(family.flatMap((record) => held.get(record.id) ?? []));
      madeAvailable.push(...family.map((record) => ({ sourceId: record.id, at })));
      if (moved.length > 0) {
        postings.push({
          accountId: payment.accountId,
          paymentId: payment.id,
          merchantId: payment.merchantId,
          kind: 'settlement' as const,
          lines: moved.flatMap(settlementLines),
          now: at,
        });
      }
      records.push({ claimed: payment, settled: updated, moved, at });
      if (statusChanged) {
        events.push({
          accountId: payment.accountId,
          type: 'payment.completed' as const,
          resource: paymentResource(updated, kids, at),
          previousStatus: payment.status,
        });
      }
    }
    await postMany(tx, postings);
    await makeAvailable(tx, madeAvailable);
    await writeEvents(tx, events);
    result.settled = settled.length;
    ({ achFileId: result.achFileId } = await deps.recordSettled(tx, { settled: records, clock, now: input.now }));
    return result;
  });
}

/**
 * An ACH debit returned by the receiving bank: `failed` with its return code, the capture reversed exactly. The
 * return is the processor's last word on the debit, so it replaces the acceptance in `code` and `message`, as a
 * refusal at creation fills them; `returnCode` says it came at settlement. Every view and event renders the row.
 */
async function returnAch(tx: DbOrTx, payment: Payment, achReturn: AchReturn, at: Date): Promise<void> {
  const capture = await captureEntries(tx, payment.id);
  if (capture.length > 0) {
    await post(tx, {
      accountId: payment.accountId,
      paymentId: payment.id,
      merchantId: payment.merchantId,
      kind: 'ach_return',
      lines: reverseLines(capture),
      now: at,
    });
    // The capture's money never becomes available: its balance transactions and the return's net zero there.
    await makeAvailable(tx, [{ sourceId: payment.id, at }]);
  }
  const failed = await transitionPayment(tx, {
    payment,
    to: 'failed',
    at,
    set: { failedAt: at, returnCode: achReturn.code, code: achReturn.code, message: achReturn.message },
  });
  await writeEvent(tx, {
    accountId: payment.accountId,
    type: 'payment.failed',
    resource: paymentResource(failed, [], at),
    previousStatus: payment.status,
  });
}

function mergeByMerchant(rows: { merchantId: string; amount: number }[]) {
  const sums = new Map<string, number>();
  for (const { merchantId, amount } of rows) sums.set(merchantId, (sums.get(merchantId) ?? 0) + amount);
  return [...sums].filter(([, amount]) => amount !== 0).map(([merchantId, amount]) => ({ merchantId, amount }));
}
