import type { BalanceResource, BalanceTransactionResource } from '@pps/shared/contract';
import type { Travel } from '@pps/shared/db';
import { invalidDateRange, keysetOf, type PageQuery, type ServiceContext } from '@pps/shared/http';
import { requireMerchant } from '../merchants/model/merchants.access';
import { balanceResource, balanceTransactionResource } from './balances.presenter';
import {
  accountBalances,
  type BalanceTransactionFilter,
  balanceTransactionPlace,
  listBalanceTransactionRows,
  merchantBalances,
} from './balances.repository';

/**
 * GET /merchants/{id}/balance: what the ledger holds for the merchant (404 unknown, 403 another account's, as every
 * merchant route). The balance transactions add up to pending + available + in transit (docs/design.md, Balances).
 */
export async function getBalance({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { merchantId: string };
}): Promise<BalanceResource> {
  const merchant = await requireMerchant(ctx.db, ctx, input.merchantId);
  return balanceResource(merchant.id, await merchantBalances(ctx.db, merchant.id));
}

/** GET /balance: the account's balances, its merchants' summed (the id is the account's). */
export async function getAccountBalance({ ctx }: { ctx: ServiceContext }): Promise<BalanceResource> {
  return balanceResource(ctx.accountId, await accountBalances(ctx.db, ctx.accountId));
}

/** The query of GET /merchants/{id}/balance-transactions: the repository's filter as the route passes it. */
export type ListBalanceTransactionsInput = Omit<BalanceTransactionFilter, 'keyset'> & PageQuery;

/** GET /merchants/{id}/balance-transactions: a page, newest first; the dates filter as GET /payments's do. */
export async function listBalanceTransactions({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: ListBalanceTransactionsInput;
}): Promise<{ items: BalanceTransactionResource[]; total: number; travel?: Travel }> {
  const merchant = await requireMerchant(ctx.db, ctx, input.merchantId);
  if (input.startDate && input.endDate && input.startDate > input.endDate) throw invalidDateRange();
  const keyset = await keysetOf(input, (id) => balanceTransactionPlace(ctx.db, merchant.id, id));
  const { rows, total, travel } = await listBalanceTransactionRows(ctx.db, {
    ...input,
    merchantId: merchant.id,
    keyset,
  });
  return { items: rows.map(balanceTransactionResource), total, travel };
}
