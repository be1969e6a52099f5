import { absoluteUrl, single } from '@pps/shared/http';
import { formatCents } from '@pps/shared/money';
import { csvText } from '../../reports/csv';
import { payoutResource } from '../run/payout-resource';
import type { BalanceTransaction, Payout } from './payouts.repository';

export const payoutPath = (id: string) => `/payouts/${id}`;

/** A payout as GET /payouts/{id} shows it (the same resource its events carry: `payoutResource`). */
export const payoutDocument = (baseUrl: string, payout: Payout) =>
  single(absoluteUrl(baseUrl, payoutPath(payout.id)), payoutResource(payout));

type Item = {
  balanceTransactionId: string | null;
  type: string;
  sourceId: string | null;
  amount: number;
  fee: number;
  net: number;
  availableOn: Date | null;
  createdAt: Date | null;
};

/** What a partial payout left in available between two payouts: a row with no balance transaction behind it. */
const forwardItem = (type: 'brought_forward' | 'carried_forward', net: number): Item => ({
  balanceTransactionId: null,
  type,
  sourceId: null,
  amount: net,
  fee: 0,
  net,
  availableOn: null,
  createdAt: null,
});

/**
 * The rows of a payout's reconciliation, in order: what the previous payout left (brought forward), the balance
 * transactions it carried, and what it left for the next (carried forward, negative). Their net adds up to the
 * payout's amount (docs/design.md, Payouts); the forward rows appear only when not zero.
 */
function itemsOf(payout: Payout, carried: BalanceTransaction[]): Item[] {
  return [
    ...(payout.broughtForward !== 0 ? [forwardItem('brought_forward', payout.broughtForward)] : []),
    ...carried.map((row) => ({
      balanceTransactionId: row.id,
      type: row.type,
      sourceId: row.sourceId,
      amount: row.amount,
      fee: row.fee,
      net: row.net,
      availableOn: row.availableOn,
      createdAt: row.createdAt,
    })),
    ...(payout.carriedForward !== 0 ? [forwardItem('carried_forward', -payout.carriedForward)] : []),
  ];
}

const sum = (items: Item[], field: 'amount' | 'fee' | 'net') => items.reduce((total, item) => total + item[field], 0);

export function reconciliationResource(payout: Payout, carried: BalanceTransaction[]) {
  const items = itemsOf(payout, carried);
  return {
    type: 'payoutReconciliations' as const,
    id: payout.id,
    attributes: {
      payoutId: payout.id,
      merchantId: payout.merchantId,
      amount: formatCents(payout.amount),
      currency: payout.currency,
      status: payout.status,
      items: items.map((item) => ({
        ...item,
        amount: formatCents(item.amount),
        fee: formatCents(item.fee),
        net: formatCents(item.net),
        availableOn: item.availableOn?.toISOString() ?? null,
        createdAt: item.createdAt?.toISOString() ?? null,
      })),
      totals: {
        count: items.length,
        amount: formatCents(sum(items, 'amount')),
        fee: formatCents(sum(items, 'fee')),
        net: formatCents(sum(items, 'net')),
      },
    },
  };
}

export const reconciliationDocument = (baseUrl: string, resource: ReturnType<typeof reconciliationResource>) =>
  single(absoluteUrl(baseUrl, `${payoutPath(resource.id)}/reconciliation`), resource);

const RECONCILIATION_COLUMNS = [
  'balanceTransactionId',
  'type',
  'sourceId',
  'amount',
  'fee',
  'net',
  'availableOn',
  'createdAt',
] as const;

/** The reconciliation as CSV: the items' columns, one row per item, then a `total` row whose net is the amount. */
export function reconciliationCsv(resource: ReturnType<typeof reconciliationResource>): string {
  const { items, totals } = resource.attributes;
  return csvText(RECONCILIATION_COLUMNS, [
    ...items,
    { type: 'total', amount: totals.amount, fee: totals.fee, net: totals.net },
  ]);
}
