import { getAccountBalanceRoute, getBalanceRoute, listBalanceTransactionsRoute } from '@pps/shared/contract';
import { absoluteUrl, list, type ServiceApp, single } from '@pps/shared/http';
import { balanceUrl } from './balances.presenter';
import { getAccountBalance, getBalance, listBalanceTransactions } from './balances.usecases';

/** A merchant's balances and balance transactions: reads of what the ledger postings wrote. */
export function registerBalanceRoutes(app: ServiceApp) {
  app.openapi(getAccountBalanceRoute, async (c) => {
    const ctx = c.get('ctx');
    const balance = await getAccountBalance({ ctx });
    return c.json(single(absoluteUrl(ctx.config.PUBLIC_BASE_URL, '/balance'), balance), 200);
  });

  app.openapi(getBalanceRoute, async (c) => {
    const ctx = c.get('ctx');
    const balance = await getBalance({ ctx, input: { merchantId: c.req.valid('param').id } });
    return c.json(single(balanceUrl(ctx.config.PUBLIC_BASE_URL, balance.id), balance), 200);
  });

  app.openapi(listBalanceTransactionsRoute, async (c) => {
    const ctx = c.get('ctx');
    const query = c.req.valid('query');
    const { items, total, travel } = await listBalanceTransactions({
      ctx,
      input: { ...query, merchantId: c.req.valid('param').id },
    });
    const page = { total, limit: query.limit, offset: query.offset, travel };
    return c.json(list(c, ctx.config.PUBLIC_BASE_URL, items, page), 200);
  });
}
