import { type DbOrTx, schema } from '@pps/shared/db';
import { and, asc, eq } from 'drizzle-orm';

const { settlementBatches } = schema;

export type SettlementFigures = Pick<
  schema.SettlementBatch,
  'merchantId' | 'count' | 'gross' | 'fees' | 'refunds' | 'net'
>;

/** The settlement batches of one account and settlement day (settlement owns them; this only reads), by merchant. */
export async function settlementBatchesOn(db: DbOrTx, accountId: string, date: string): Promise<SettlementFigures[]> {
  return db
    .select({
      merchantId: settlementBatches.merchantId,
      count: settlementBatches.count,
      gross: settlementBatches.gross,
      fees: settlementBatches.fees,
      refunds: settlementBatches.refunds,
      net: settlementBatches.net,
    })
    .from(settlementBatches)
    .where(and(eq(settlementBatches.accountId, accountId), eq(settlementBatches.settlementDate, date)))
    .orderBy(asc(settlementBatches.merchantId));
}
