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

/**
 * An account's settlement over settlement days `startDate`…`endDate`: each merchant's batch figures summed, cents as
 * strings, and their totals. One day's report is identified by its date, a range's by `startDate..endDate`.
 */
export function settlementReportResource(range: { startDate: string; endDate: string }, batches: SettlementFigures[]) {
  const totals = { count: 0, gross: 0, fees: 0, refunds: 0, net: 0 };
  for (const batch of batches) for (const figure of FIGURES) totals[figure] += batch[figure];
  const { startDate, endDate } = range;
  const oneDay = startDate === endDate;
  return {
    type: 'settlementReports' as const,
    id: oneDay ? startDate : `${startDate}..${endDate}`,
    attributes: {
      date: oneDay ? startDate : null,
      startDate,
      endDate,
      currency: 'USD',
      merchants: batches.map((batch) => ({ merchantId: batch.merchantId, ...asText(batch) })),
      totals: asText(totals),
    },
  };
}

export function settlementReportDocument(baseUrl: string, resource: ReturnType<typeof settlementReportResource>) {
  const { date, startDate, endDate } = resource.attributes;
  const query = date ? `date=${date}` : `startDate=${startDate}&endDate=${endDate}`;
  return single(absoluteUrl(baseUrl, `/reports/settlement?${query}`), resource);
}

/** The report as CSV: one row per merchant, then a `total` row. */
export function settlementReportCsv(resource: ReturnType<typeof settlementReportResource>): string {
  const { merchants, totals } = resource.attributes;
  return csvText(['merchantId', ...FIGURES], [...merchants, { merchantId: 'total', ...totals }]);
}
