import { type DbOrTx, schema } from '@pps/shared/db';
import { ledgerAccounts } from '@pps/shared/ledger';
import { and, count, desc, eq, gte, inArray, lt, type SQL, sql } from 'drizzle-orm';

const { balanceTransactions, ledgerEntries } = schema;

export type BalanceTransactionRow = schema.BalanceTransaction;
export type MerchantBalances = { pending: number; available: number; inTransit: number };

/**
 * A merchant's balances: the sums of its three ledger accounts, in one statement grouped by account (along the
 * ledger's account index). The ledger is the record; an account with no entry is zero.
 */
export async function merchantBalances(db: DbOrTx, merchantId: string): Promise<MerchantBalances> {
  const names = {
    pending: ledgerAccounts.pending(merchantId),
    available: ledgerAccounts.available(merchantId),
    inTransit: ledgerAccounts.inTransit(merchantId),
  };
  const rows = await db
    .select({ ledgerAccount: ledgerEntries.ledgerAccount, balance: sql<string>`sum(${ledgerEntries.amount})::text` })
    .from(ledgerEntries)
    .where(inArray(ledgerEntries.ledgerAccount, Object.values(names)))
    .groupBy(ledgerEntries.ledgerAccount);
  const sums = new Map(rows.map((row) => [row.ledgerAccount, Number(row.balance)]));
  return {
    pending: sums.get(names.pending) ?? 0,
    available: sums.get(names.available) ?? 0,
    inTransit: sums.get(names.inTransit) ?? 0,
  };
}

export type BalanceTransactionFilter = {
  merchantId: string;
  type?: schema.BalanceTransactionType;
  payoutId?: string;
  startDate?: Date;
  endDate?: Date;
  limit: number;
  offset: number;
};

/**
 * A page of a merchant's balance transactions, newest first, with the total of the filter. The page is read
 * backwards along `(merchant_id, created_at, id)`, the dates bounding that range, so it reads up to its own end and
 * never sorts the merchant's history (test/listing-scans.test.ts); `type` and `payoutId` filter the rows it reads.
 */
export async function listBalanceTransactionRows(
  db: DbOrTx,
  filter: BalanceTransactionFilter,
): Promise<{ rows: BalanceTransactionRow[]; total: number }> {
  const conditions: (SQL | undefined)[] = [
    eq(balanceTransactions.merchantId, filter.merchantId),
    filter.type ? eq(balanceTransactions.type, filter.type) : undefined,
    filter.payoutId ? eq(balanceTransactions.payoutId, filter.payoutId) : undefined,
    filter.startDate ? gte(balanceTransactions.createdAt, filter.startDate) : undefined,
    filter.endDate ? lt(balanceTransactions.createdAt, filter.endDate) : undefined,
  ];
  const where = and(...conditions);
  const [rows, [totals]] = await Promise.all([
    db
      .select()
      .from(balanceTransactions)
      .where(where)
      .orderBy(desc(balanceTransactions.createdAt), desc(balanceTransactions.id))
      .limit(filter.limit)
      .offset(filter.offset),
    db.select({ total: count() }).from(balanceTransactions).where(where),
  ]);
  return { rows, total: totals?.total ?? 0 };
}
