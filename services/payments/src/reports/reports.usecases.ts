import { addCalendarDays, pacificDate } from '@pps/shared/clock';
import type { ServiceContext } from '@pps/shared/http';
import { dailyReportResource, settlementReportResource } from './reports.presenter';
import { dailyFiguresBetween, disputeFiguresBetween, settlementBatchesBetween } from './reports.repository';

/** The report's query as the contract let it through: one day, or a range (both ends), never both. */
export type SettlementReportQuery = { date?: string; startDate?: string; endDate?: string };

/**
 * GET /reports/settlement: what settlement moved for each merchant of the account over settlement days (the Pacific
 * date the money settled), and what chargebacks took and returned on those days, one (`date`, a range of one day) or a range (`startDate`…`endDate`).
 */
export async function getSettlementReport({ ctx, input }: { ctx: ServiceContext; input: SettlementReportQuery }) {
  const range = input.date
    ? { startDate: input.date, endDate: input.date }
    : { startDate: input.startDate!, endDate: input.endDate! };
  const [batches, disputes] = await Promise.all([
    settlementBatchesBetween(ctx.db, ctx.accountId, range),
    disputeFiguresBetween(ctx.db, ctx.accountId, range),
  ]);
  return settlementReportResource(range, batches, disputes);
}

/** The days a daily report covers when the query names none: the 30 ending today by the account's clock. */
const DEFAULT_DAILY_DAYS = 30;

/**
 * GET /reports/daily: the account's payments per day (attempts, approved, declined, approved amount) from the kept
 * daily figures, every day of the range present: the console's home chart, and a client's own.
 */
export async function getDailyReport({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { startDate?: string; endDate?: string };
}) {
  const today = pacificDate(ctx.clock.now());
  const range =
    input.startDate && input.endDate
      ? { startDate: input.startDate, endDate: input.endDate }
      : { startDate: addCalendarDays(today, 1 - DEFAULT_DAILY_DAYS), endDate: today };
  return dailyReportResource(range, await dailyFiguresBetween(ctx.db, ctx.accountId, range));
}
