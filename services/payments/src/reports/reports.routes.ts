import { getDailyReportRoute, getSettlementReportRoute } from '@pps/shared/contract';
import type { ServiceApp, ServiceDeps } from '@pps/shared/http';
import { csvResponse, wantsCsv } from './csv';
import { dailyReportDocument, settlementReportCsv, settlementReportDocument } from './reports.presenter';
import { getDailyReport, getSettlementReport } from './reports.usecases';

export function registerReportRoutes(app: ServiceApp, deps: ServiceDeps) {
  app.openapi(getSettlementReportRoute, async (c) => {
    const report = await getSettlementReport({ ctx: c.get('ctx'), input: c.req.valid('query') });
    if (wantsCsv(c)) return csvResponse(c, settlementReportCsv(report), `settlement-${report.id}.csv`) as never;
    return c.json(settlementReportDocument(deps.config.PUBLIC_BASE_URL, report), 200);
  });

  app.openapi(getDailyReportRoute, async (c) => {
    const report = await getDailyReport({ ctx: c.get('ctx'), input: c.req.valid('query') });
    return c.json(dailyReportDocument(deps.config.PUBLIC_BASE_URL, report), 200);
  });
}
