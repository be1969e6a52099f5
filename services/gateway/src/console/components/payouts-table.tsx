import type { PayoutResource } from '@pps/shared/contract';
import type { FC } from 'hono/jsx';
import { dollars } from './format';
import { Table } from './table';

export type PayoutList = { data: PayoutResource[]; meta: { hasMore: boolean } };

/** A payout's status as the pages show it: its class colours a failure. */
export const PayoutStatus: FC<{ status: string }> = ({ status }) => <span class={`status ${status}`}>{status}</span>;

/**
 * Payouts, a row each, newest first (when each was made is on its page: the arrival date is the one people ask about);
 * the merchant column left out where the page is the merchant's.
 */
export const PayoutsTable: FC<{ caption: string; payouts: PayoutResource[]; empty: string; merchant?: boolean }> = ({
  caption,
  payouts,
  empty,
  merchant = true,
}) => (
  <Table
    caption={caption}
    headers={[
      'Payout',
      ...(merchant ? ['Merchant'] : []),
      'Amount',
      'Status',
      'Method',
      'Arrival date',
      'Trace number',
    ]}
    empty={empty}
    rows={payouts.map((payout) => {
      const a = payout.attributes;
      return [
        <a href={`/console/payouts/${payout.id}`}>{payout.id}</a>,
        ...(merchant ? [<a href={`/console/merchants/${a.merchantId}`}>{a.merchantId}</a>] : []),
        dollars(a.amount),
        <PayoutStatus status={a.status} />,
        a.method,
        a.arrivalDate,
        a.traceNumber ?? '—',
      ];
    })}
  />
);
