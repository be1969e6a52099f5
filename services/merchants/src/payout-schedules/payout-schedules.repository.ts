import { type DbOrTx, schema } from '@pps/shared/db';

const { payoutSchedules } = schema;

/** A new merchant's payout schedule: the default, daily with no delay (docs/design.md, Payouts). */
export async function insertDefaultSchedule(
  tx: DbOrTx,
  input: { merchantId: string; accountId: string; now: Date },
): Promise<void> {
  await tx
    .insert(payoutSchedules)
    .values({ merchantId: input.merchantId, accountId: input.accountId, createdAt: input.now, updatedAt: input.now });
}
