import type { ServiceContext } from '@pps/shared/http';
import { settlementReportResource } from './reports.presenter';
import { settlementBatchesOn } from './reports.repository';

/** GET /reports/settlement?date=: what settlement moved for each merchant of the account on that Pacific day. */
export async function getSettlementReport({ ctx, input }: { ctx: ServiceContext; input: { date: string } }) {
  return settlementReportResource(input.date, await settlementBatchesOn(ctx.db, ctx.accountId, input.date));
}
