import { type AchFileDeps, type NachaBatch, type NachaEntry, storeAchFile } from '@pps/shared/ach';
import { pacificDate } from '@pps/shared/clock';
import { type DbOrTx, schema, textArray } from '@pps/shared/db';
import { inArray, sql } from 'drizzle-orm';
import type { Payment } from './settlement.repository';

const { merchants, payments } = schema;

export type { AchFileDeps };

/**
 * Writes the NACHA file of the ACH records one settlement batch settled, in that batch's transaction: debits
 * for ACH payments, credits for their refunds, one NACHA batch per merchant, SEC code, kind and effective date.
 * Stores it in `ach_files` (`storeAchFile`, the one way to write an ACH file) and links each payment to it.
 * Returns the file id, or null when nothing was ACH.
 */
export async function writeAchFile(
  tx: DbOrTx,
  deps: AchFileDeps,
  records: Payment[],
  now: Date,
): Promise<string | null> {
  if (records.length === 0) return null;
  const names = new Map(
    (
      await tx
        .select({ id: merchants.id, name: merchants.accountName })
        .from(merchants)
        .where(inArray(merchants.id, [...new Set(records.map((record) => record.merchantId))]))
    ).map((row) => [row.id, row.name]),
  );
  const batches = new Map<string, NachaBatch>();
  for (const record of records) {
    const bank = record.bank;
    if (!bank || !record.bankAccountNumberEnc || !record.bankRoutingNumberEnc) {
      throw new Error(`ACH record ${record.id} has no bank account to write`);
    }
    const refund = record.parentPaymentId !== null;
    const secCode = (bank.standardEntryClassCode ?? 'WEB') as NachaBatch['secCode'];
    const effectiveEntryDate = pacificDate(record.settleAt ?? now);
    const key = [record.merchantId, secCode, refund, effectiveEntryDate].join('|');
    let batch = batches.get(key);
    if (!batch) {
      batch = {
        companyName: names.get(record.merchantId) ?? record.merchantId,
        companyId: deps.config.ACH_COMPANY_ID,
        secCode,
        entryDescription: refund ? 'REFUND' : 'PAYMENT',
        effectiveEntryDate,
        entries: [],
      };
      batches.set(key, batch);
    }
    const savings = bank.accountType === 'savings';
    const entry: NachaEntry = {
      transactionCode: refund ? (savings ? '32' : '22') : savings ? '37' : '27',
      routingNumber: deps.cipher.decrypt(record.bankRoutingNumberEnc),
      accountNumber: deps.cipher.decrypt(record.bankAccountNumberEnc),
      amount: record.amount,
      individualId: record.id.slice(-15),
      individualName: bank.accountName,
      ...(secCode === 'WEB' || secCode === 'TEL' ? { paymentTypeCode: 'S' as const } : {}),
    };
    batch.entries.push(entry);
  }

  const paymentIds = records.map((record) => record.id);
  const { id } = await storeAchFile(tx, deps, { batches: [...batches.values()], now, paymentIds });
  await tx
    .update(payments)
    .set({ achFileId: id })
    .where(sql`${payments.id} = any(${textArray(paymentIds)})`);
  return id;
}
