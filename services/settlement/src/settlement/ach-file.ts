import type { Payment } from '@pps/payments';
import { type AchFileDeps, type NachaBatch, type NachaEntry, storeAchFile } from '@pps/shared/ach';
import { pacificDate } from '@pps/shared/clock';
import { type DbOrTx, schema, textArray } from '@pps/shared/db';
import { inArray, sql } from 'drizzle-orm';

const { merchants, payments } = schema;

export type { AchFileDeps };

/**
 * Writes the NACHA file of the ACH records one settlement batch settled, in that batch's transaction: debits
 * for ACH payments, credits for their refunds, one NACHA batch per merchant, SEC code, kind and effective date.
 * Stores it in `ach_files` (`storeAchFile`, the one way to write an ACH file) and links each payment to it and to
 * its entry's trace number (what a return of the entry names). Returns the file id, or null when nothing was ACH.
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
  const batches = new Map<string, { batch: NachaBatch; paymentIds: string[] }>();
  for (const record of records) {
    const bank = record.bank;
    if (!bank || !record.bankAccountNumberEnc || !record.bankRoutingNumberEnc) {
      throw new Error(`ACH record ${record.id} has no bank account to write`);
    }
    const refund = record.parentPaymentId !== null;
    const secCode = (bank.standardEntryClassCode ?? 'WEB') as NachaBatch['secCode'];
    const effectiveEntryDate = pacificDate(record.settleAt ?? now);
    const key = [record.merchantId, secCode, refund, effectiveEntryDate].join('|');
    let group = batches.get(key);
    if (!group) {
      group = {
        batch: {
          companyName: names.get(record.merchantId) ?? record.merchantId,
          companyId: deps.config.ACH_COMPANY_ID,
          secCode,
          entryDescription: refund ? 'REFUND' : 'PAYMENT',
          effectiveEntryDate,
          entries: [],
        },
        paymentIds: [],
      };
      batches.set(key, group);
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
    group.batch.entries.push(entry);
    group.paymentIds.push(record.id);
  }

  // The file's entries in order, batch by batch: the order of its trace numbers.
  const paymentIds = [...batches.values()].flatMap((group) => group.paymentIds);
  const { id, traceNumbers } = await storeAchFile(tx, deps, {
    batches: [...batches.values()].map((group) => group.batch),
    now,
    paymentIds,
  });
  // An update from a set of (payment, trace number) pairs: the query builder has no UPDATE … FROM unnest.
  await tx.execute(sql`
    update ${payments} set ach_file_id = ${id}, trace_number = filed.trace_number
    from unnest(${textArray(paymentIds)}, ${textArray(traceNumbers)}) as filed(id, trace_number)
    where ${payments.id} = filed.id`);
  return id;
}
