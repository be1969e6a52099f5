import { type AchReturn, type Processor, paymentResource, settlePayments, transitionPayment } from '@pps/payments';
import { groupBy } from '@pps/shared/collections';
import type { Db, DbOrTx } from '@pps/shared/db';
import { withTransaction } from '@pps/shared/db';
import { writeEvent, writeEvents } from '@pps/shared/events';
import { makeAvailable, post, postMany, reverseLines, settlementLines } from '@pps/shared/ledger';
import { type AchFileDeps, writeAchFile } from './ach-file';
import { BatchTotals } from './batch-totals';
import {
  addToSettlementBatches,
  captureEntries,
  childrenOf,
  claimDueRecords,
  type Payment,
  pendingHeld,
} from './settlement.repository';

export type SettleBatchDeps = AchFileDeps & { db: Db; processor: Processor };
export type BatchResult = { claimed: number; settled: number; returned: number; achFileId: string | null };

const isParent = (payment: Payment) => payment.parentPaymentId === null;
/** ACH debits and their refund records (which carry the parent's bank snapshot) settle on the ACH rail. */
export const onAchRail = (payment: Payment) => payment.paymentType === 'ACH' || payment.bank !== null;
/** Children settled with their parent: second splits, completed at once, whose moves sit in pending until then. */
const carried = (child: Payment) => child.paymentType === 'secondSplit' && child.settleAt === null;

/**
 * One settlement batch, in one transaction (docs/design.md): claims up to `limit` due records and settles them
 * through the state table (`pending → completed`; a refunded parent keeps its status and records `settledAt`),
 * or, for an ACH debit the bank returns, fails it with its R-code and reverses its capture. What each record left
 * in merchants' pending balances becomes available; the day's settlement batches add up; `payment.completed` /
 * `payment.failed` go to the outbox; the ACH records settled go into one NACHA file. Set-based: a handful of
 * statements per batch, whatever its size. A crash anywhere rolls the whole batch back.
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
    const totals = new BatchTotals();
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
      totals.add(payment, moved, at);
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
    await addToSettlementBatches(tx, totals.deltas(), input.now);
    result.settled = settled.length;
    // The file is stamped with the scope's clock, the one its records settled by (one account's sandbox clock, or
    // the real clock for every account), as the payout run stamps its files: one pass, one clock, whatever the file.
    const achRecords = settled.map((row) => row.payment).filter(onAchRail);
    result.achFileId = await writeAchFile(tx, deps, achRecords, clock);
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
