import type { ServiceContext } from '@pps/shared/http';
import { settlementReportResource } from './reports.presenter';
import { disputeFiguresBetween, settlementBatchesBetween } from './reports.repository';

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
