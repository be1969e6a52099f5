import { type DbOrTx, schema } from '@pps/shared/db';
import { sql } from 'drizzle-orm';

const { settlementBatches } = schema;

export type BatchDelta = {
  id: string;
  accountId: string;
  merchantId: string;
  settlementDate: string;
  count: number;
  gross: number;
  fees: number;
  refunds: number;
  net: number;
};

/**
 * Adds a pass's figures to the merchants' settlement batches of the day (one row per merchant and day). Rows go
 * in one statement sorted by merchant and day, so concurrent passes lock them in the same order (no deadlock).
 */
export async function addToSettlementBatches(tx: DbOrTx, deltas: BatchDelta[], now: Date): Promise<void> {
  if (deltas.length === 0) return;
  const sorted = [...deltas].sort((a, b) =>
    a.merchantId === b.merchantId
      ? a.settlementDate.localeCompare(b.settlementDate)
      : a.merchantId.localeCompare(b.merchantId),
  );
  const added = (column: string) => sql.raw(`settlement_batches.${column} + excluded.${column}`);
  await tx
    .insert(settlementBatches)
    .values(sorted.map((delta) => ({ ...delta, createdAt: now, updatedAt: now })))
    .onConflictDoUpdate({
      target: [settlementBatches.merchantId, settlementBatches.settlementDate],
      set: {
        count: added('count'),
        gross: added('gross'),
        fees: added('fees'),
        refunds: added('refunds'),
        net: added('net'),
        updatedAt: now,
      },
    });
}
