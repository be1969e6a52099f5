import type { BalanceResource, BalanceTransactionResource } from '@pps/shared/contract';
import { absoluteUrl } from '@pps/shared/http';
import { formatCents } from '@pps/shared/money';
import { merchantPath } from '../merchants/model/merchants.presenter';
import type { BalanceTransactionRow, MerchantBalances } from './balances.repository';

export const balanceUrl = (baseUrl: string, merchantId: string) =>
  absoluteUrl(baseUrl, `${merchantPath(merchantId)}/balance`);

/** A merchant's balances as GET shows them: its id, signed cents as strings. */
export const balanceResource = (merchantId: string, balances: MerchantBalances): BalanceResource => ({
  type: 'balances',
  id: merchantId,
  attributes: {
    currency: 'USD',
    pending: formatCents(balances.pending),
    available: formatCents(balances.available),
    inTransit: formatCents(balances.inTransit),
  },
});

/** A balance transaction as the listing shows it: signed cents as strings, instants in ISO 8601. */
export const balanceTransactionResource = (row: BalanceTransactionRow): BalanceTransactionResource => ({
  type: 'balanceTransactions',
  id: row.id,
  attributes: {
    type: row.type,
    amount: formatCents(row.amount),
    fee: formatCents(row.fee),
    net: formatCents(row.net),
    currency: 'USD',
    sourceId: row.sourceId,
    status: row.status,
    availableOn: row.availableOn.toISOString(),
    payoutId: row.payoutId,
    createdAt: row.createdAt.toISOString(),
  },
});
