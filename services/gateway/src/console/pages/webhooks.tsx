import type { Hono } from 'hono';
import type { GatewayDeps } from '../../deps';
import { when } from '../components/format';
import { Layout, Notice } from '../components/layout';
import { Table } from '../components/table';
import { consoleApi } from '../console-api';
import { accountOf, type ConsoleEnv } from '../console-env';

export type WebhookEndpoint = {
  id: string;
  attributes: {
    url: string;
    events: string[];
    description: string | null;
    enabled: boolean;
    disabledReason: string | null;
    createdAt: string;
    updatedAt: string;
  };
};
type WebhookList = { data: WebhookEndpoint[]; meta: { hasMore: boolean } };

/** "enabled", or "disabled" with the platform's reason when it gave one. */
export const endpointState = (endpoint: WebhookEndpoint) =>
  endpoint.attributes.enabled
    ? 'enabled'
    : `disabled${endpoint.attributes.disabledReason ? `: ${endpoint.attributes.disabledReason}` : ''}`;

/** GET /console/webhooks: the account's webhook endpoints, newest first, by cursor pages. */
export function registerWebhooksPage(app: Hono<ConsoleEnv>, deps: GatewayDeps) {
  app.get('/console/webhooks', async (c) => {
    const account = accountOf(c);
    if (!account) return c.redirect('/console/accounts', 303);
    const api = consoleApi(deps, account, c.get('requestId'));
    const after = c.req.query('after') || undefined;
    const query = new URLSearchParams({ limit: '50' });
    if (after) query.set('startingAfter', after);
    const answer = await api.get<WebhookList>(`/webhooks?${query}`);
    const endpoints = answer.status === 200 ? answer.body.data : [];
    const errors = answer.status === 200 ? [] : (answer.body?.errors ?? []).map((error) => error.detail);
    const last = endpoints.at(-1)?.id;
    const next = answer.status === 200 && answer.body.meta.hasMore && last ? last : undefined;
    return c.html(
      <Layout title="Webhooks" viewer={c.get('viewer')} current="/console/webhooks">
        <p>The URLs the platform posts this account's events to, each with every delivery and its attempts.</p>
        {errors.map((error) => (
          <Notice kind="error">{error}</Notice>
        ))}
        <Table
          caption="Webhook endpoints, newest first"
          headers={['Endpoint', 'URL', 'Events', 'State', 'Created']}
          empty="No webhook endpoint. Create one with POST /webhooks."
          rows={endpoints.map((endpoint) => [
            <a href={`/console/webhooks/${endpoint.id}`}>{endpoint.id}</a>,
            endpoint.attributes.url,
            endpoint.attributes.events.join(', '),
            <span class={`status ${endpoint.attributes.enabled ? 'enabled' : 'failed'}`}>
              {endpointState(endpoint)}
            </span>,
            when(endpoint.attributes.createdAt),
          ])}
        />
        <nav class="pages" aria-label="Pages">
          {after && <a href="/console/webhooks">First page</a>}
          {next && (
            <a href={`/console/webhooks?after=${encodeURIComponent(next)}`} rel="next">
              Next page
            </a>
          )}
        </nav>
      </Layout>,
    );
  });
}
