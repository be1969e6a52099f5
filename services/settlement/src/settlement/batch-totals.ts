import type { Payment } from '@pps/payments';
import { pacificDate } from '@pps/shared/clock';
import { newId } from '@pps/shared/ids';
import type { BatchDelta } from './settlement.repository';

/**
 * The settlement-batch figures of one pass, per merchant and settlement day: the Pacific date the record settled
 * (its `settledAt`, by its account's clock), not the day it was due (`settleAt`), so a late pass's money counts on
 * the day it moved. Records settled, the merchant's own captures (gross, fees), refunds paid, and the net made
 * available.
 */
export class BatchTotals {
  private readonly rows = new Map<string, BatchDelta>();
  /** Records of a batch share a few settlement instants: the Pacific date of each is computed once. */
  private readonly days = new Map<number, string>();

  /** A settled record, what it moved from each merchant's pending balance to available, and when it settled. */
  add(record: Payment, moved: { merchantId: string; amount: number }[], settledAt: Date): void {
    const day = this.dayOf(settledAt);
    const touched = new Set<string>();
    for (const { merchantId, amount } of moved) {
      this.row(record.accountId, merchantId, day).net += amount;
      touched.add(merchantId);
    }
    if (record.parentPaymentId === null) {
      const row = this.row(record.accountId, record.merchantId, day);
      row.gross += record.gross;
      row.fees += record.grossMinusNet;
      touched.add(record.merchantId);
    } else {
      const payer = record.paymentType === 'refundSplit' ? record.splitMerchantId! : record.merchantId;
      this.row(record.accountId, payer, day).refunds += record.amount;
      touched.add(payer);
    }
    for (const merchantId of touched) this.row(record.accountId, merchantId, day).count += 1;
  }

  deltas(): BatchDelta[] {
    return [...this.rows.values()];
  }

  private dayOf(instant: Date): string {
    let day = this.days.get(instant.getTime());
    if (day === undefined) {
      day = pacificDate(instant);
      this.days.set(instant.getTime(), day);
    }
    return day;
  }

  private row(accountId: string, merchantId: string, settlementDate: string): BatchDelta {
    const key = `${merchantId}|${settlementDate}`;
    let row = this.rows.get(key);
    if (!row) {
      row = {
        id: newId('batch'),
        accountId,
        merchantId,
        settlementDate,
        count: 0,
        gross: 0,
        fees: 0,
        refunds: 0,
        net: 0,
      };
      this.rows.set(key, row);
    }
    return row;
  }
}
