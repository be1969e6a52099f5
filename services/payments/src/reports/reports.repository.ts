import { type DbOrTx, schema } from '@pps/shared/db';
import { and, asc, between, eq, sql } from 'drizzle-orm';

const { settlementBatches } = schema;

export type SettlementFigures = Pick<
  schema.SettlementBatch,
  'merchantId' | 'count' | 'gross' | 'fees' | 'refunds' | 'net'
>;

const summed = (column: typeof settlementBatches.gross | typeof settlementBatches.count) =>
  sql<number>`sum(${column})::bigint`.mapWith(Number);

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
