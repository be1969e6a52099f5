import {
  countedLists,
  type DbOrTx,
  type Keyset,
  keysetPage,
  keysetRead,
  listTotal,
  placeIn,
  schema,
  type Travel,
} from '@pps/shared/db';
import { and, asc, eq, gte, lt, notInArray, type SQL } from 'drizzle-orm';

const { balanceTransactions, payouts, payoutSchedules } = schema;

export type Payout = schema.Payout;
export type BalanceTransaction = schema.BalanceTransaction;

export async function findPayout(db: DbOrTx, id: string): Promise<Payout | undefined> {
  const [row] = await db.select().from(payouts).where(eq(payouts.id, id));
  return row;
}

/**
 * Holds the merchant's payout schedule row until the transaction ends (the merchants service owns the table; this
 * only locks it): what `createPayouts` requires, so a manual payout and the payout run (which claims schedule rows
 * with SKIP LOCKED) never pay one merchant at the same time. False when the merchant has no schedule row.
 */
export async function lockPayoutSchedule(tx: DbOrTx, merchantId: string): Promise<boolean> {
  const rows = await tx
    .select({ merchantId: payoutSchedules.merchantId })
    .from(payoutSchedules)
    .where(eq(payoutSchedules.merchantId, merchantId))
    .for('update');
  return rows.length > 0;
}

export type PayoutListFilter = {
  /** Absent for the operator (the CLI), who reads any account's. */
  accountId?: string;
  merchantId?: string;
  status?: schema.PayoutStatus;
  startDate?: Date;
  endDate?: Date;
  limit: number;
  offset: number;
  /** The page starts at a cursor item's place (`payoutPlace`), not at the newest payout. */
  keyset?: Keyset;
};

/** The payouts a list reads: the account's (none named for the operator), or one merchant's. */
const payoutScope = (scope: Pick<PayoutListFilter, 'accountId' | 'merchantId'>) =>
  and(
    scope.accountId ? eq(payouts.accountId, scope.accountId) : undefined,
    scope.merchantId ? eq(payouts.merchantId, scope.merchantId) : undefined,
  );

/** A payout's place in the list of `scope`, for a cursor; undefined when it is no payout of the scope's. */
export const payoutPlace = (db: DbOrTx, scope: Pick<PayoutListFilter, 'accountId' | 'merchantId'>, id: string) =>
  placeIn(db, payouts, id, payoutScope(scope));

/**
 * A page of payouts, newest first (from a cursor, from its place on), with the total of the filter (along the
 * account's or the merchant's index).
 */
export async function listPayoutRows(
  db: DbOrTx,
  filter: PayoutListFilter,
): Promise<{ rows: Payout[]; total: number; travel?: Travel }> {
  const conditions: (SQL | undefined)[] = [
    payoutScope(filter),
    filter.status ? eq(payouts.status, filter.status) : undefined,
    filter.startDate ? gte(payouts.createdAt, filter.startDate) : undefined,
    filter.endDate ? lt(payouts.createdAt, filter.endDate) : undefined,
  ];
  const where = and(...conditions);
  // The merchant's kept total (its owner checked by the caller), else the account's; the operator's counts.
  const scope = filter.merchantId
    ? { list: countedLists.merchantPayouts, scope: filter.merchantId }
    : filter.accountId
      ? { list: countedLists.accountPayouts, scope: filter.accountId }
      : undefined;
  const read = keysetRead(payouts, filter.keyset, filter.limit);
  const [rows, total] = await Promise.all([
    db
      .select()
      .from(payouts)
      .where(and(where, read.where))
      .orderBy(...read.orderBy)
      .limit(read.limit)
      .offset(filter.offset),
    listTotal(
      db,
      payouts,
      where,
      filter.startDate || filter.endDate || !scope
        ? undefined
        : { ...scope, buckets: filter.status ? [filter.status] : undefined },
    ),
  ]);
  return { ...keysetPage(rows, filter.limit, filter.keyset), total };
}

/**
 * The balance transactions a payout carried, oldest first. Its own row (`payout`: the money leaving in transit when
 * the deposit is paid; a debit's `negative_balance_debit`: the money arriving) also names it, but was not carried:
 * it is left out.
 */
export async function carriedBalanceTransactions(db: DbOrTx, payoutId: string): Promise<BalanceTransaction[]> {
  return db
    .select()
    .from(balanceTransactions)
    .where(
      and(
        eq(balanceTransactions.payoutId, payoutId),
        notInArray(balanceTransactions.type, ['payout', 'negative_balance_debit']),
      ),
    )
    .orderBy(asc(balanceTransactions.createdAt), asc(balanceTransactions.id));
}
