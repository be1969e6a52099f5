import type { MerchantListItem } from '@pps/shared/contract';
import { merchantStatuses } from '@pps/shared/states';
import type { Hono } from 'hono';
import type { GatewayDeps } from '../../deps';
import { FilterSelect, firstPageHref, nextPageHref } from '../components/filter-fields';
import { when } from '../components/format';
import { Layout, Notice } from '../components/layout';
import { Table } from '../components/table';
import { consoleApi, refusalsOf } from '../console-api';
import { accountOf, type ConsoleEnv } from '../console-env';
import { registerMerchantPage } from './merchant';

type MerchantList = { data: MerchantListItem[]; meta: { hasMore: boolean } };

const PAGE_SIZE = 50;

/**
 * GET /console/merchants: the account's merchants, newest first, by cursor pages, filtered by status (the one filter
 * `GET /merchants` takes; the page keeps it in the URL); and each merchant's page (./merchant.tsx).
 */
export function registerMerchantsPages(app: Hono<ConsoleEnv>, deps: GatewayDeps) {
  app.get('/console/merchants', async (c) => {
    const account = accountOf(c);
    if (!account) return c.redirect('/console/accounts', 303);
    const status = c.req.query('status')?.trim() || undefined;
    const after = c.req.query('after') || undefined;
    const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (status) query.set('status', status);
    if (after) query.set('startingAfter', after);
    const answer = await consoleApi(deps, account, c.get('requestId')).get<MerchantList>(`/merchants?${query}`);
    const merchants = answer.status === 200 ? answer.body.data : [];
    const errors = refusalsOf(answer);
    const last = merchants.at(-1)?.id;
    const next = answer.status === 200 && answer.body.meta.hasMore && last ? nextPageHref(c.req.url, last) : undefined;
    return c.html(
      <Layout title="Merchants" viewer={c.get('viewer')} current="/console/merchants">
        <form method="get" action="/console/merchants" class="filters" aria-label="Filter merchants">
          <FilterSelect id="status" label="Status" value={status} options={merchantStatuses} />
          <div class="actions">
            <button type="submit">Filter</button>
            <a href="/console/merchants">Clear</a>
          </div>
        </form>
        {errors.map((error) => (
          <Notice kind="error">{error}</Notice>
        ))}
        <Table
          caption="Merchants, newest first"
          headers={['Merchant', 'Id', 'Status', 'Type', 'Created']}
          empty={status ? 'No merchant has this status.' : 'No merchant yet. Create one with POST /merchants.'}
          rows={merchants.map((merchant) => [
            <a href={`/console/merchants/${merchant.id}`}>{merchant.attributes.accountName}</a>,
            merchant.id,
            <span class={`status ${merchant.attributes.status}`}>{merchant.attributes.status}</span>,
            merchant.attributes.accountType,
            when(merchant.attributes.createdAt),
          ])}
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
  registerMerchantPage(app, deps);
}
