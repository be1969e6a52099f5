import type { Hono } from 'hono';
import { listAccounts } from '../../admin/accounts.usecases';
import { type GatewayDeps, gatewayContext } from '../../deps';
import { when } from '../components/format';
import { Layout } from '../components/layout';
import { Table } from '../components/table';
import type { ConsoleEnv } from '../console-env';

/** GET /console/accounts: the operator's list of every account, newest first, a page of 50 at a time. */
export function registerAccountsPage(app: Hono<ConsoleEnv>, deps: GatewayDeps) {
  const ctx = gatewayContext(deps);
  app.get('/console/accounts', async (c) => {
    const viewer = c.get('viewer');
    if (viewer.kind !== 'operator') return c.redirect('/console', 303);
    const { accounts, next } = await listAccounts({ ctx, input: { after: c.req.query('after'), limit: 50 } });
    return c.html(
      <Layout title="Accounts" viewer={viewer} current="/console/accounts">
        <Table
          caption="Accounts, newest first"
          headers={['Account', 'Name', 'Status', 'API version', 'API key', 'Created']}
          empty="No accounts yet."
          rows={accounts.map((account) => [
            account.id,
            account.name,
            account.status,
            account.apiVersion,
            `sk_test_…${account.apiKeyLast4}`,
            when(account.createdAt.toISOString()),
          ])}
        />
        {next && (
          <nav class="pages" aria-label="Pages">
            <a href={`/console/accounts?after=${encodeURIComponent(next)}`} rel="next">
              Next page
            </a>
          </nav>
        )}
      </Layout>,
    );
  });
}
