import { addCalendarDays } from '@pps/shared/clock';
import { absoluteUrl, single } from '@pps/shared/http';
import { formatCents } from '@pps/shared/money';
import { csvText } from './csv';
import type { DayFigures, DisputeFigures, SettlementFigures } from './reports.repository';

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

/** One day's (or the totals') figures as the API writes them: counts as numbers, the amount as cents text. */
const dayAsText = (figures: Omit<DayFigures, 'date'>) => ({
  attempts: figures.attempts,
  approved: figures.approved,
  declined: figures.attempts - figures.approved,
  approvedAmount: formatCents(figures.approvedAmount),
});

/** Every date from `startDate` to `endDate`, inclusive, oldest first. */
function datesOf(range: { startDate: string; endDate: string }) {
  const dates: string[] = [];
  for (let date = range.startDate; date <= range.endDate; date = addCalendarDays(date, 1)) dates.push(date);
  return dates;
}

/** The daily report over a range: each day's kept figures, zero where none was kept, and the range's totals. */
export function dailyReportResource(range: { startDate: string; endDate: string }, kept: DayFigures[]) {
  const byDate = new Map(kept.map((day) => [day.date, day]));
  const days = datesOf(range).map((date) => byDate.get(date) ?? { date, attempts: 0, approved: 0, approvedAmount: 0 });
  const totals = { attempts: 0, approved: 0, approvedAmount: 0 };
  for (const day of days) {
    totals.attempts += day.attempts;
    totals.approved += day.approved;
    totals.approvedAmount += day.approvedAmount;
  }
  return {
    type: 'dailyReports' as const,
    id: `${range.startDate}..${range.endDate}`,
    attributes: {
      startDate: range.startDate,
      endDate: range.endDate,
      currency: 'USD' as const,
      days: days.map((day) => ({ date: day.date, ...dayAsText(day) })),
      totals: dayAsText(totals),
    },
  };
}

/** GET /reports/daily's document. */
export function dailyReportDocument(baseUrl: string, resource: ReturnType<typeof dailyReportResource>) {
  const { startDate, endDate } = resource.attributes;
  return single(absoluteUrl(baseUrl, `/reports/daily?startDate=${startDate}&endDate=${endDate}`), resource);
}
