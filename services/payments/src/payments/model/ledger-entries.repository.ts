import { type DbOrTx, schema } from '@pps/shared/db';
import { entriesForPayments, type LedgerEntry } from '@pps/shared/ledger';
import { inArray } from 'drizzle-orm';

const { balanceTransactions } = schema;

/** A balance transaction as an entry names it: which posting made it, for which merchant. */
export type BalanceTransactionRef = { id: string; postingId: string; merchantId: string };

/** The balance transactions these records' postings made, along `balance_transactions_source_idx`. */
export async function balanceTransactionsOfRecords(db: DbOrTx, recordIds: string[]): Promise<BalanceTransactionRef[]> {
  if (recordIds.length === 0) return [];
  return db
    .select({
      id: balanceTransactions.id,
      postingId: balanceTransactions.postingId,
      merchantId: balanceTransactions.merchantId,
    })
    .from(balanceTransactions)
    .where(inArray(balanceTransactions.sourceId, recordIds));
}

/**
 * The ledger entries of these records (a payment, its child records, its disputes) in posting order, and the
 * balance transactions their postings made: two reads by index, sent at once.
 */
export async function ledgerOfRecords(
  db: DbOrTx,
  recordIds: string[],
): Promise<{ entries: LedgerEntry[]; balanceTransactions: BalanceTransactionRef[] }> {
  const [entries, made] = await Promise.all([
    entriesForPayments(db, recordIds),
    balanceTransactionsOfRecords(db, recordIds),
  ]);
  return { entries, balanceTransactions: made };
}
