import type { MerchantResource, PayoutScheduleInput } from '@pps/shared/contract';
import { withTransaction } from '@pps/shared/db';
import type { ServiceContext } from '@pps/shared/http';
import { assertNotClosed, presentMerchant, recordMerchantEvent, requireMerchant } from '../model/merchants.access';
import { updateMerchantRow } from '../model/merchants.repository';
import { findSchedule, type PayoutScheduleSettings, updateSchedule } from '../model/payout-schedules.repository';

const sameSettings = (a: PayoutScheduleSettings, b: PayoutScheduleSettings) =>
  a.interval === b.interval &&
  a.weeklyAnchor === b.weeklyAnchor &&
  a.monthlyAnchor === b.monthlyAnchor &&
  a.delayDays === b.delayDays;

/**
 * PUT /merchants/{id}/payout-schedule: replaces the schedule (the body was checked whole: an anchor only with its
 * interval). Takes the merchant's row lock like every merchant update; a payout run holding the schedule row makes
 * this wait for it, so the run pays by the schedule it read. The merchant's `updatedAt` moves and `merchant.updated`
 * carries the new schedule; setting the schedule it already has changes nothing.
 */
export async function updatePayoutSchedule({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { merchantId: string; schedule: PayoutScheduleInput };
}): Promise<MerchantResource> {
  const wanted: PayoutScheduleSettings = {
    interval: input.schedule.interval,
    weeklyAnchor: input.schedule.weeklyAnchor ?? null,
    monthlyAnchor: input.schedule.monthlyAnchor ?? null,
    delayDays: input.schedule.delayDays,
  };
  return withTransaction(ctx.db, async (tx) => {
    const current = await requireMerchant(tx, ctx, input.merchantId, { lock: true });
    assertNotClosed(current);
    if (sameSettings(await findSchedule(tx, current.id), wanted)) return presentMerchant(tx, current);
    const now = ctx.clock.now();
    await updateSchedule(tx, current.id, { ...wanted, updatedAt: now });
    const row = await updateMerchantRow(tx, current.id, { updatedAt: now });
    ctx.log.info({ merchantId: row.id, interval: wanted.interval }, 'merchant payout schedule changed');
    return recordMerchantEvent(tx, { type: 'merchant.updated', row, requestId: ctx.requestId });
  });
}
