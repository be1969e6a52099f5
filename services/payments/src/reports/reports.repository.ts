import { addCalendarDays, startOfPacificDay } from '@pps/shared/clock';
import { type DbOrTx, schema } from '@pps/shared/db';
import { and, asc, between, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';

const { balanceTransactions, dailyFigures, settlementBatches } = schema;

export type SettlementFigures = Pick<
  schema.SettlementBatch,
  'merchantId' | 'count' | 'gross' | 'fees' | 'refunds' | 'net'
>;

const summed = (column: AnyPgColumn) => sql<number>`sum(${column})::bigint`.mapWith(Number);

/**
 * The settlement batches of one account over settlement days `startDate`…`endDate` (inclusive; settlement owns them,
 * this only reads), summed per merchant, by merchant.
 */
export async function settlementBatchesBetween(
  db: DbOrTx,
  accountId: string,
  range: { startDate: string; endDate: string },
): Promise<SettlementFigures[]> {
  return db
    .select({
      merchantId: settlementBatches.merchantId,
      count: summed(settlementBatches.count),
      gross: summed(settlementBatches.gross),
      fees: summed(settlementBatches.fees),
      refunds: summed(settlementBatches.refunds),
      net: summed(settlementBatches.net),
    })
    .from(settlementBatches)
    .where(
      and(
        eq(settlementBatches.accountId, accountId),
        between(settlementBatches.settlementDate, range.startDate, range.endDate),
      ),
    )
    .groupBy(settlementBatches.merchantId)
    .orderBy(asc(settlementBatches.merchantId));
}

/** A merchant's chargebacks over the report's days: the amounts taken back, their fees, and what won ones returned. */
export type DisputeFigures = { merchantId: string; disputed: number; disputeFees: number; reinstated: number };

/**
 * The account's `dispute` and `dispute_reversal` balance transactions made on Pacific days `startDate`…`endDate`
 * (inclusive), summed per merchant, by merchant: read along their partial index, a few rows whatever the history.
 */
export async function disputeFiguresBetween(
  db: DbOrTx,
  accountId: string,
  range: { startDate: string; endDate: string },
): Promise<DisputeFigures[]> {
  const from = startOfPacificDay(range.startDate);
  const to = startOfPacificDay(addCalendarDays(range.endDate, 1));
  const { amount, fee, type } = balanceTransactions;
  return db
    .select({
      merchantId: balanceTransactions.merchantId,
      disputed: sql<number>`coalesce(sum(-${amount}) filter (where ${type} = 'dispute'), 0)::bigint`.mapWith(Number),
      disputeFees: sql<number>`coalesce(sum(${fee}) filter (where ${type} = 'dispute'), 0)::bigint`.mapWith(Number),
      reinstated: sql<number>`coalesce(sum(${amount}) filter (where ${type} = 'dispute_reversal'), 0)::bigint`.mapWith(
        Number,
      ),
    })
    .from(balanceTransactions)
    .where(
      and(
        eq(balanceTransactions.accountId, accountId),
        inArray(balanceTransactions.type, ['dispute', 'dispute_reversal']),
        gte(balanceTransactions.createdAt, from),
        lt(balanceTransactions.createdAt, to),
      ),
    )
    .groupBy(balanceTransactions.merchantId)
    .orderBy(asc(balanceTransactions.merchantId));
}

/** An account's payments of one day, as `daily_figures` keeps them (the slots summed). */
export type DayFigures = { date: string; attempts: number; approved: number; approvedAmount: number };

/**
 * The account's kept daily figures over days `startDate`…`endDate` (inclusive), oldest first: at most 16 rows a day
 * along the primary key, whatever the number of payments. Days without a payment have no row.
 */
export async function dailyFiguresBetween(
  db: DbOrTx,
  accountId: string,
  range: { startDate: string; endDate: string },
): Promise<DayFigures[]> {
  return db
    .select({
      date: dailyFigures.day,
      attempts: summed(dailyFigures.attempts),
      approved: summed(dailyFigures.approved),
      approvedAmount: summed(dailyFigures.approvedAmount),
    })
    .from(dailyFigures)
    .where(and(eq(dailyFigures.accountId, accountId), between(dailyFigures.day, range.startDate, range.endDate)))
    .groupBy(dailyFigures.day)
    .orderBy(asc(dailyFigures.day));
}
