import type { ServiceContext } from '@pps/shared/http';
import { settlementReportResource } from './reports.presenter';
import { settlementBatchesBetween } from './reports.repository';

/** The report's query as the contract let it through: one day, or a range (both ends), never both. */
export type SettlementReportQuery = { date?: string; startDate?: string; endDate?: string };

/**
 * GET /reports/settlement: what settlement moved for each merchant of the account over settlement days (the Pacific
 * date the money settled), one (`date`, a range of one day) or a range (`startDate`…`endDate`).
 */
export async function getSettlementReport({ ctx, input }: { ctx: ServiceContext; input: SettlementReportQuery }) {
  const range = input.date
    ? { startDate: input.date, endDate: input.date }
    : { startDate: input.startDate!, endDate: input.endDate! };
  return settlementReportResource(range, await settlementBatchesBetween(ctx.db, ctx.accountId, range));
}
