import type { Payment, RecordSettled } from '@pps/payments';
import { type AchFileDeps, writeAchFile } from './ach-file';
import { BatchTotals } from './batch-totals';
import { addToSettlementBatches } from './settlement.repository';

/** ACH debits and their refund records (which carry the parent's bank snapshot) settle on the ACH rail. */
const onAchRail = (payment: Payment) => payment.paymentType === 'ACH' || payment.bank !== null;

/**
 * What the settlement service records of each batch payments' settle run settles, in that batch's transaction:
 * the merchants' settlement batches of the day add up, and the ACH records settled go into one NACHA file. The
 * file is stamped with the scope's clock, the one its records settled by (one account's sandbox clock, or the real
 * clock for every account), as the payout run stamps its files: one run, one clock, whatever the file.
 */
export const recordSettledBatch =
  (deps: AchFileDeps): RecordSettled =>
  async (tx, { settled, clock, now }) => {
    const totals = new BatchTotals();
    for (const { claimed, moved, at } of settled) totals.add(claimed, moved, at);
    await addToSettlementBatches(tx, totals.deltas(), now);
    const achRecords = settled.map((record) => record.settled).filter(onAchRail);
    return { achFileId: await writeAchFile(tx, deps, achRecords, clock) };
  };
