import { payoutStatuses } from '@pps/shared/states';
import type { Hono } from 'hono';
import type { GatewayDeps } from '../../deps';
import { FilterInput, FilterSelect, firstPageHref, nextPageHref } from '../components/filter-fields';
import { Layout, Notice } from '../components/layout';
import { type PayoutList, PayoutsTable } from '../components/payouts-table';
import { type ApiAnswer, consoleApi } from '../console-api';
import { accountOf, type ConsoleContext, type ConsoleEnv } from '../console-env';
import { registerPayoutPage } from './payout';

const PAGE_SIZE = 50;

/** The filters as the page's form names them (kept in the URL), each an API filter of `GET /payouts`. */
type PayoutFilters = { status?: string; merchant?: string };

const filtersOf = (c: ConsoleContext): PayoutFilters => ({
  status: c.req.query('status')?.trim() || undefined,
  merchant: c.req.query('merchant')?.trim() || undefined,
});

/**
 * What the page says of a refusal. A merchant filter naming no merchant of the account is answered the same whether
 * the merchant does not exist or is another account's (the API tells them apart: 400, 403), as a 404 page would.
 */
function refusalOf(answer: ApiAnswer, filters: PayoutFilters): string[] {
  const errors = (answer.body?.errors ?? []) as { code: string; detail: string; source?: { parameter?: string } }[];
  const aboutMerchant = errors.some((error) => error.source?.parameter === 'merchantId');
  if (filters.merchant && (answer.status === 403 || aboutMerchant)) {
    return [`No merchant ${filters.merchant} of this account.`];
  }
  return errors.map((error) => error.detail);
}

/**
 * GET /console/payouts: the account's payouts, newest first, by cursor pages, filtered by status and merchant (the
 * merchant's page links here with its id); and each payout's page (./payout.tsx).
 */
export function registerPayoutsPages(app: Hono<ConsoleEnv>, deps: GatewayDeps) {
  app.get('/console/payouts', async (c) => {
    const account = accountOf(c);
    if (!account) return c.redirect('/console/accounts', 303);
    const filters = filtersOf(c);
    const after = c.req.query('after') || undefined;
    const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (filters.status) query.set('status', filters.status);
    if (filters.merchant) query.set('merchantId', filters.merchant);
    if (after) query.set('startingAfter', after);
    const answer = await consoleApi(deps, account, c.get('requestId')).get<PayoutList>(`/payouts?${query}`);
    const payouts = answer.status === 200 ? answer.body.data : [];
    const errors = answer.status === 200 ? [] : refusalOf(answer, filters);
    const last = payouts.at(-1)?.id;
    const next = answer.status === 200 && answer.body.meta.hasMore && last ? nextPageHref(c.req.url, last) : undefined;
    const filtered = Boolean(filters.status || filters.merchant);
    return c.html(
      <Layout title="Payouts" viewer={c.get('viewer')} current="/console/payouts">
        <form method="get" action="/console/payouts" class="filters" aria-label="Filter payouts">
          <FilterSelect id="status" label="Status" value={filters.status} options={payoutStatuses} />
          <FilterInput id="merchant" label="Merchant id" value={filters.merchant} placeholder="mer_…" />
          <div class="actions">
            <button type="submit">Filter</button>
            <a href="/console/payouts">Clear</a>
          </div>
        </form>
        {errors.map((error) => (
          <Notice kind="error">{error}</Notice>
        ))}
        <PayoutsTable
          caption="Payouts, newest first"
          payouts={payouts}
          empty={
            errors.length > 0
              ? 'Change the filters to see payouts.'
              : filtered
                ? 'No payout matches these filters.'
                : 'No payout yet.'
          }
        />
        <nav class="pages" aria-label="Pages">
          {after && <a href={firstPageHref(c.req.url)}>First page</a>}
          {next && (
            <a href={next} rel="next">
              Next page
            </a>
          )}
        </nav>
      </Layout>,
    );
  });
  registerPayoutPage(app, deps);
}
