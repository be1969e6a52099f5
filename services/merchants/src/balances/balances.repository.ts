import {
  countedLists,
  type DbOrTx,
  type Keyset,
  keptCount,
  keysetPage,
  keysetRead,
  placeIn,
  schema,
  type Travel,
} from '@pps/shared/db';
import { keptBalances, ledgerAccounts } from '@pps/shared/ledger';
import { and, count, eq, gte, lt, type SQL, sql } from 'drizzle-orm';

const { balanceTransactions, ledgerBalances, merchants } = schema;

export type BalanceTransactionRow = schema.BalanceTransaction;
export type MerchantBalances = { pending: number; available: number; inTransit: number };

/** A merchant's balances: its three ledger accounts' kept balances, in one statement. */
export async function merchantBalances(db: DbOrTx, merchantId: string): Promise<MerchantBalances> {
  const names = {
    pending: ledgerAccounts.pending(merchantId),
    available: ledgerAccounts.available(merchantId),
    inTransit: ledgerAccounts.inTransit(merchantId),
  };
  const kept = await keptBalances(db, Object.values(names));
  return {
    pending: kept.get(names.pending)!,
    available: kept.get(names.available)!,
    inTransit: kept.get(names.inTransit)!,
  };
}

/** A merchant ledger account's name built in SQL from `merchants.id`, by the same function that names it in code. */
function ledgerAccountOfRow(name: (merchantId: string) => string) {
  const [before, after] = name('\u0000').split('\u0000');
  return sql`${before} || ${merchants.id} || ${after}`;
}

/**
 * The balances of every merchant of an account, summed: the kept balances of its merchants' three ledger accounts,
 * read along `ledger_balances`' primary key in one statement (a few rows per merchant, whatever the history).
 */
export async function accountBalances(db: DbOrTx, accountId: string): Promise<MerchantBalances> {
  const { pending, available, inTransit } = ledgerAccounts;
  const sumOf = (name: (merchantId: string) => string) =>
    sql<string>`coalesce(sum(${ledgerBalances.balance}) filter (where ${ledgerBalances.ledgerAccount} = ${ledgerAccountOfRow(name)}), 0)::text`;
  const [row] = await db
    .select({ pending: sumOf(pending), available: sumOf(available), inTransit: sumOf(inTransit) })
    .from(merchants)
    .innerJoin(
      ledgerBalances,
      sql`${ledgerBalances.ledgerAccount} in (${sql.join([pending, available, inTransit].map(ledgerAccountOfRow), sql`, `)})`,
    )
    .where(eq(merchants.accountId, accountId));
  return {
    pending: Number(row?.pending ?? 0),
    available: Number(row?.available ?? 0),
    inTransit: Number(row?.inTransit ?? 0),
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
  /** The page starts at a cursor item's place (`balanceTransactionPlace`), not at the newest row. */
  keyset?: Keyset;
};

/** A row's place in the merchant's list, for a cursor; undefined when it is no row of the merchant's. */
export const balanceTransactionPlace = (db: DbOrTx, merchantId: string, id: string) =>
  placeIn(db, balanceTransactions, id, eq(balanceTransactions.merchantId, merchantId));

/**
 * A page of a merchant's balance transactions, newest first, with the total of the filter. The page is read
 * backwards along `(merchant_id, created_at, id)`, the dates bounding that range, so it reads up to its own end and
 * never sorts the merchant's history (test/payments/listing-scans.test.ts); `type` and `payoutId` filter the rows it reads.
 * From a cursor the range starts at the cursor's place.
 */
export async function listBalanceTransactionRows(
  db: DbOrTx,
  filter: BalanceTransactionFilter,
): Promise<{ rows: BalanceTransactionRow[]; total: number; travel?: Travel }> {
  const conditions: (SQL | undefined)[] = [
    eq(balanceTransactions.merchantId, filter.merchantId),
    filter.type ? eq(balanceTransactions.type, filter.type) : undefined,
    filter.payoutId ? eq(balanceTransactions.payoutId, filter.payoutId) : undefined,
    filter.startDate ? gte(balanceTransactions.createdAt, filter.startDate) : undefined,
    filter.endDate ? lt(balanceTransactions.createdAt, filter.endDate) : undefined,
  ];
  const where = and(...conditions);
  const read = keysetRead(balanceTransactions, filter.keyset, filter.limit);
  const [rows, total] = await Promise.all([
    db
      .select()
      .from(balanceTransactions)
      .where(and(where, read.where))
      .orderBy(...read.orderBy)
      .limit(read.limit)
      .offset(filter.offset),
    filter.payoutId || filter.startDate || filter.endDate
      ? db
          .select({ total: count() })
          .from(balanceTransactions)
          .where(where)
          .then(([counted]) => counted?.total ?? 0)
      : keptCount(db, {
          list: countedLists.balanceTransactions,
          scope: filter.merchantId,
          buckets: filter.type ? [filter.type] : undefined,
        }),
  ]);
  return { ...keysetPage(rows, filter.limit, filter.keyset), total };
}
