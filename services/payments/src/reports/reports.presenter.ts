import { absoluteUrl, single } from '@pps/shared/http';
import { formatCents } from '@pps/shared/money';
import { csvText } from '../csv/csv';
import type { SettlementFigures } from './reports.repository';

const FIGURES = ['count', 'gross', 'fees', 'refunds', 'net'] as const;

const asText = (figures: Omit<SettlementFigures, 'merchantId'>) => ({
  count: figures.count,
  gross: formatCents(figures.gross),
  fees: formatCents(figures.fees),
  refunds: formatCents(figures.refunds),
  net: formatCents(figures.net),
});

/** One day's settlement of an account: each merchant's batch figures, cents as strings, and their totals. */
export function settlementReportResource(date: string, batches: SettlementFigures[]) {
  const totals = { count: 0, gross: 0, fees: 0, refunds: 0, net: 0 };
  for (const batch of batches) for (const figure of FIGURES) totals[figure] += batch[figure];
  return {
    type: 'settlementReports' as const,
    id: date,
    attributes: {
      date,
      currency: 'USD',
      merchants: batches.map((batch) => ({ merchantId: batch.merchantId, ...asText(batch) })),
      totals: asText(totals),
    },
  };
}

export const settlementReportDocument = (baseUrl: string, resource: ReturnType<typeof settlementReportResource>) =>
  single(absoluteUrl(baseUrl, `/reports/settlement?date=${resource.id}`), resource);

/** The report as CSV: one row per merchant, then a `total` row. */
export function settlementReportCsv(resource: ReturnType<typeof settlementReportResource>): string {
  const { merchants, totals } = resource.attributes;
  return csvText(['merchantId', ...FIGURES], [...merchants, { merchantId: 'total', ...totals }]);
}
