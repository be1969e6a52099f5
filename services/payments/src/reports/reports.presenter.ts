import { absoluteUrl, single } from '@pps/shared/http';
import { formatCents } from '@pps/shared/money';
import { csvText } from '../csv/csv';
import type { DisputeFigures, SettlementFigures } from './reports.repository';

const FIGURES = ['count', 'gross', 'fees', 'refunds', 'net', 'disputed', 'disputeFees', 'reinstated'] as const;
type Figures = Record<(typeof FIGURES)[number], number>;
const none = (): Figures => Object.fromEntries(FIGURES.map((figure) => [figure, 0])) as Figures;

const asText = (figures: Figures) => ({
  count: figures.count,
  gross: formatCents(figures.gross),
  fees: formatCents(figures.fees),
  refunds: formatCents(figures.refunds),
  net: formatCents(figures.net),
  disputed: formatCents(figures.disputed),
  disputeFees: formatCents(figures.disputeFees),
  reinstated: formatCents(figures.reinstated),
});

/** Each merchant's settlement and chargeback figures together, by merchant id; zero where it had none of one. */
function byMerchant(batches: SettlementFigures[], disputes: DisputeFigures[]) {
  const merchants = new Map<string, Figures>();
  for (const { merchantId, ...figures } of [...batches, ...disputes]) {
    merchants.set(merchantId, { ...(merchants.get(merchantId) ?? none()), ...figures });
  }
  return [...merchants.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * An account's settlement over settlement days `startDate`…`endDate`: each merchant's batch figures summed, with
 * what chargebacks took back and returned on those days, cents as strings, and their totals. One day's report is identified by its date, a range's by `startDate..endDate`.
 */
export function settlementReportResource(
  range: { startDate: string; endDate: string },
  batches: SettlementFigures[],
  disputes: DisputeFigures[],
) {
  const merchants = byMerchant(batches, disputes);
  const totals = none();
  for (const [, figures] of merchants) for (const figure of FIGURES) totals[figure] += figures[figure];
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
      merchants: merchants.map(([merchantId, figures]) => ({ merchantId, ...asText(figures) })),
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
