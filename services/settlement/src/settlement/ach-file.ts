import { type NachaBatch, type NachaEntry, readNachaTotals, writeNachaFile } from '@pps/shared/ach';
import { pacificDate } from '@pps/shared/clock';
import type { Config } from '@pps/shared/config';
import type { FieldCipher } from '@pps/shared/crypto';
import { type DbOrTx, schema, textArray } from '@pps/shared/db';
import { newId } from '@pps/shared/ids';
import { count, gte, inArray, sql } from 'drizzle-orm';
import type { Payment } from './settlement.repository';

const { achFiles, merchants, payments } = schema;
const MODIFIERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export type AchFileDeps = { config: Config; cipher: FieldCipher };

/**
 * Writes the NACHA file of the ACH records one settlement batch settled, in that batch's transaction: debits
 * for ACH payments, credits for their refunds, one NACHA batch per merchant, SEC code, kind and effective date.
 * Stores it in `ach_files` and links each payment to it. Returns the file id, or null when nothing was ACH.
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

  const startOfDay = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const [today] = await tx.select({ n: count() }).from(achFiles).where(gte(achFiles.createdAt, startOfDay));
  const content = writeNachaFile({
    immediateDestination: deps.config.ACH_DESTINATION_ROUTING,
    immediateOrigin: deps.config.ACH_ODFI_ROUTING,
    destinationName: deps.config.ACH_DESTINATION_NAME,
    originName: deps.config.ACH_ORIGIN_NAME,
    createdAt: now,
    fileIdModifier: MODIFIERS[(today?.n ?? 0) % MODIFIERS.length]!,
    originatingDfi: deps.config.ACH_ODFI_ROUTING.slice(0, 8),
    batches: [...batches.values()],
  });
  const totals = readNachaTotals(content);
  const id = newId('achFile');
  const paymentIds = records.map((record) => record.id);
  await tx.insert(achFiles).values({
    id,
    batchCount: totals.batchCount,
    entryCount: totals.entryCount,
    entryHash: String(totals.entryHash),
    totalDebit: totals.totalDebit,
    totalCredit: totals.totalCredit,
    paymentIds,
    // The file holds full account and routing numbers: encrypted at rest like every other copy of them.
    contentEnc: deps.cipher.encrypt(content),
    createdAt: now,
  });
  await tx
    .update(payments)
    .set({ achFileId: id })
    .where(sql`${payments.id} = any(${textArray(paymentIds)})`);
  return id;
}
