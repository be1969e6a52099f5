import type { NachaBatch, NachaEntry } from '@pps/shared/ach';
import { type AchFileDeps, storeAchFile } from '@pps/shared/ach';
import type { DbOrTx } from '@pps/shared/db';
import { schema, textArray } from '@pps/shared/db';
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import { inScope, type PayoutScope } from './due-schedules';

const { merchantBankAccounts, payouts } = schema;
type MerchantBankAccount = schema.MerchantBankAccount;
type Payout = schema.Payout;

export type FiledPayouts = { fileId: string; payouts: number; amount: number; bytes: number };

/**
 * Files up to `limit` pending payouts of the scope that no ACH file carries yet (manual payouts: the run files its
 * own as it makes them) into ONE NACHA file (`fileTransfers`), in the caller's transaction; each payout gets the
 * file's id and its entry's trace number. `FOR UPDATE SKIP LOCKED` and a write conditional on `ach_file_id`
 * being null: two runs never file a payout twice. Null when nothing was left to file.
 */
export async function filePayouts(
  tx: DbOrTx,
  deps: AchFileDeps,
  input: { scope: PayoutScope; now: Date; limit: number },
): Promise<FiledPayouts | null> {
  const rows = await tx
    .select({ payout: payouts, bank: merchantBankAccounts })
    .from(payouts)
    .innerJoin(merchantBankAccounts, eq(merchantBankAccounts.id, payouts.bankAccountId))
    .where(and(eq(payouts.status, 'pending'), isNull(payouts.achFileId), inScope(payouts.accountId, input.scope)))
    .orderBy(asc(payouts.arrivalDate), asc(payouts.id))
    .limit(input.limit)
    .for('update', { of: payouts, skipLocked: true });
  if (rows.length === 0) return null;
  const { file, traceNumbers } = await fileTransfers(tx, deps, rows, input.now);
  const payoutIds = [...traceNumbers.keys()];
  // An update from a set of (payout, trace number) pairs: the query builder has no UPDATE … FROM unnest.
  const filed = await tx.execute<{ id: string }>(sql`
    update ${payouts} set ach_file_id = ${file.fileId}, trace_number = filed.trace_number,
      updated_at = ${input.now.toISOString()}::timestamptz
    from unnest(${textArray(payoutIds)}, ${textArray([...traceNumbers.values()])}) as filed(id, trace_number)
    where ${payouts.id} = filed.id and ${payouts.achFileId} is null and ${payouts.status} = 'pending'
    returning ${payouts.id}`);
  if (filed.length !== payoutIds.length) {
    throw new Error(`filing ${payoutIds.length} payouts changed ${filed.length}: some changed concurrently`);
  }
  return file;
}

/**
 * Writes ONE NACHA file for these payouts (docs/design.md, Payouts), in the caller's transaction: a credit per
 * payout to the bank account version it was made with (PPD for a personal account, CCD for a business one; 22
 * checking, 32 savings), or for a negative balance's debit (a negative amount) a debit of it (27 checking, 37
 * savings); one NACHA batch per SEC code, arrival date (the effective entry date) and direction, `PAYOUT` or
 * `NEGBALANCE` as the entry description, a debit batch balanced by an offsetting credit to the platform's own
 * account. Returns the stored file and each payout's trace number (by payout id).
 */
export async function fileTransfers(
  tx: DbOrTx,
  deps: AchFileDeps,
  transfers: { payout: Payout; bank: MerchantBankAccount }[],
  now: Date,
): Promise<{ file: FiledPayouts; traceNumbers: Map<string, string> }> {
  // Each batch's entries' payouts, in the entries' order; null for a debit batch's offsetting entry.
  const batches = new Map<string, { batch: NachaBatch; owners: (string | null)[] }>();
  for (const { payout, bank } of transfers) {
    const secCode = bank.accountOwnership === 'business' ? 'CCD' : 'PPD';
    const direction = payout.amount < 0 ? 'debit' : 'credit';
    const key = `${secCode}|${payout.arrivalDate}|${direction}`;
    let group = batches.get(key);
    if (!group) {
      group = {
        batch: {
          companyName: deps.config.ACH_ORIGIN_NAME,
          companyId: deps.config.ACH_COMPANY_ID,
          secCode,
          entryDescription: direction === 'debit' ? 'NEGBALANCE' : 'PAYOUT',
          effectiveEntryDate: payout.arrivalDate,
          entries: [],
        },
        owners: [],
      };
      batches.set(key, group);
    }
    group.batch.entries.push({
      transactionCode: TRANSACTION_CODES[direction][bank.accountType === 'savings' ? 'savings' : 'checking'],
      routingNumber: deps.cipher.decrypt(bank.routingNumberEnc),
      accountNumber: deps.cipher.decrypt(bank.accountNumberEnc),
      amount: Math.abs(payout.amount),
      individualId: payout.id.slice(-15),
      individualName: bank.accountName,
    });
    group.owners.push(payout.id);
  }
  for (const [key, group] of batches) {
    if (key.endsWith('|debit')) {
      group.batch.entries.push(offsetEntry(deps, group.batch.entries));
      group.owners.push(null);
    }
  }
  // The file's entries in order, batch by batch: the order of its trace numbers.
  const owners = [...batches.values()].flatMap((group) => group.owners);
  const payoutIds = owners.filter((owner) => owner !== null);
  const stored = await storeAchFile(tx, deps, {
    batches: [...batches.values()].map((group) => group.batch),
    now,
    payoutIds,
  });
  const traceNumbers = new Map(
    owners.flatMap((owner, index) => (owner ? [[owner, stored.traceNumbers[index]!] as const] : [])),
  );
  return {
    file: {
      fileId: stored.id,
      payouts: transfers.length,
      amount: transfers.reduce((sum, transfer) => sum + transfer.payout.amount, 0),
      bytes: stored.bytes,
    },
    traceNumbers,
  };
}

const TRANSACTION_CODES = {
  credit: { checking: '22', savings: '32' },
  debit: { checking: '27', savings: '37' },
} as const satisfies Record<string, Record<string, NachaEntry['transactionCode']>>;

/**
 * A debit batch's offsetting entry: a credit of the batch's total to the platform's own account at the ODFI, so the
 * batch, and the file, are balanced (their credits equal their debits).
 */
function offsetEntry(deps: AchFileDeps, debits: NachaEntry[]): NachaEntry {
  return {
    transactionCode: '22',
    routingNumber: deps.config.ACH_ODFI_ROUTING,
    accountNumber: deps.config.ACH_OFFSET_ACCOUNT_NUMBER,
    amount: debits.reduce((sum, entry) => sum + entry.amount, 0),
    individualId: 'OFFSET',
    individualName: deps.config.ACH_ORIGIN_NAME,
  };
}
