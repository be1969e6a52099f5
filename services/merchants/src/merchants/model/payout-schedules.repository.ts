import { type DbOrTx, schema } from '@pps/shared/db';
import { eq } from 'drizzle-orm';

const { payoutSchedules } = schema;

export type PayoutScheduleRow = schema.PayoutSchedule;
/** What a client sets of a schedule (PUT /merchants/{id}/payout-schedule); `lastRunOn` is the payout run's. */
export type PayoutScheduleSettings = Pick<
  PayoutScheduleRow,
  'interval' | 'weeklyAnchor' | 'monthlyAnchor' | 'delayDays'
>;

/** A new merchant's payout schedule: the default, daily with no delay (docs/design.md, Payouts). */
export async function insertDefaultSchedule(
  tx: DbOrTx,
  input: { merchantId: string; accountId: string; now: Date },
): Promise<void> {
  await tx
    .insert(payoutSchedules)
    .values({ merchantId: input.merchantId, accountId: input.accountId, createdAt: input.now, updatedAt: input.now });
}

/** The merchant's schedule; every merchant has one (made with it, or by the migration that added schedules). */
export async function findSchedule(db: DbOrTx, merchantId: string): Promise<PayoutScheduleRow> {
  const [row] = await db.select().from(payoutSchedules).where(eq(payoutSchedules.merchantId, merchantId));
  if (!row) throw new Error(`merchant ${merchantId} has no payout schedule`);
  return row;
}

/** Replaces the client's settings of a schedule; the caller holds the merchant's row lock. */
export async function updateSchedule(
  tx: DbOrTx,
  merchantId: string,
  settings: PayoutScheduleSettings & { updatedAt: Date },
): Promise<void> {
  await tx.update(payoutSchedules).set(settings).where(eq(payoutSchedules.merchantId, merchantId));
}
