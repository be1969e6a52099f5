import type { Hono } from 'hono';
import type { GatewayDeps } from '../../deps';
import { when } from '../components/format';
import { CsrfField, Layout, Notice } from '../components/layout';
import { NotFound } from '../components/not-found';
import { Fields, Table } from '../components/table';
import { type ApiAnswer, type ConsoleApi, consoleApi, refusalsOf } from '../console-api';
import { accountOf, type ConsoleContext, type ConsoleEnv } from '../console-env';
import { endpointState, type WebhookEndpoint } from './webhooks';

type Delivery = {
  id: string;
  attributes: {
    eventId: string;
    eventType: string;
    status: string;
    attempts: number;
    redeliveries: number;
    lastStatusCode: number | null;
    lastError: string | null;
    nextAttemptAt: string | null;
    createdAt: string;
    completedAt: string | null;
    attemptLog: {
      attempt: number;
      statusCode: number | null;
      latencyMs: number;
      error: string | null;
      createdAt: string;
    }[];
  };
};
type DeliveryList = { data: Delivery[]; links: { next: string | null } };

/** How much of an attempt's error the page shows: enough to recognise it (the API keeps 300 characters). */
const ERROR_EXCERPT = 120;
const excerpt = (text: string | null) =>
  !text ? '' : text.length > ERROR_EXCERPT ? `${text.slice(0, ERROR_EXCERPT)}…` : text;

/** The endpoint and a page of its deliveries (newest first, from the API's cursor `after`); undefined if not ours. */
async function webhookView(api: ConsoleApi, id: string, after: string | undefined) {
  const endpoint = await api.get<{ data: WebhookEndpoint }>(`/webhooks/${encodeURIComponent(id)}`);
  if (endpoint.status !== 200) return undefined;
  const query = new URLSearchParams({ limit: '20' });
  if (after) query.set('startingAfter', after);
  const deliveries = await api.get<DeliveryList>(`/webhooks/${encodeURIComponent(id)}/deliveries?${query}`);
  const apiNext = deliveries.status === 200 ? deliveries.body.links.next : null;
  return {
    endpoint: endpoint.body.data,
    deliveries: deliveries.status === 200 ? deliveries.body.data : [],
    next: apiNext ? (new URL(apiNext).searchParams.get('startingAfter') ?? undefined) : undefined,
  };
}
type WebhookView = NonNullable<Awaited<ReturnType<typeof webhookView>>>;

const DONE = {
  resent: 'Delivery queued again',
  enabled: 'Endpoint enabled.',
  disabled: 'Endpoint disabled.',
  created: 'Endpoint created.',
};
type Done = keyof typeof DONE;
type PageNotice = { kind: 'error' | 'done'; text: string };

/** The notice a redirect after an action asks for (`?done=resent&record=evt_…`), from known words only. */
const doneNotice = (c: ConsoleContext): PageNotice | undefined => {
  const done = c.req.query('done');
  if (!done || !Object.hasOwn(DONE, done)) return undefined;
  const record = c.req.query('record');
  if (done === 'resent') {
    return record && /^evt_[\w-]+$/.test(record) ? { kind: 'done', text: `${DONE.resent}: ${record}` } : undefined;
  }
  return { kind: 'done', text: DONE[done as Done] };
};

const refused = (what: string, answer: ApiAnswer): PageNotice => ({
  kind: 'error',
  text: `${what} was refused: ${refusalsOf(answer).join(' ')}`,
});

/** One delivery: its figures, a Resend button, and every attempt, oldest first. */
const DeliveryArticle = ({
  c,
  endpointId,
  delivery,
}: {
  c: ConsoleContext;
  endpointId: string;
  delivery: Delivery;
}) => {
  const a = delivery.attributes;
  const heading = `delivery-${delivery.id}`;
  return (
    <article class="delivery" aria-labelledby={heading}>
      <h3 id={heading}>{`${a.eventType} · ${a.eventId}`}</h3>
      <Fields
        fields={[
          ['Status', <span class={`status ${a.status}`}>{a.status}</span>],
          ['Attempts', String(a.attempts)],
          ['Redeliveries', String(a.redeliveries)],
          ['Last status code', a.lastStatusCode === null ? undefined : String(a.lastStatusCode)],
          ['Last error', excerpt(a.lastError)],
          ['Next attempt', a.nextAttemptAt && when(a.nextAttemptAt)],
          ['Created', when(a.createdAt)],
          ['Completed', a.completedAt && when(a.completedAt)],
        ]}
      />
      <form method="post" action={`/console/webhooks/${endpointId}/events/${a.eventId}/resend`} class="action">
        <CsrfField viewer={c.get('viewer')} />
        <button type="submit" aria-describedby={heading}>
          Resend
        </button>
      </form>
      <div class="attempts">
        <Table
          caption={`Attempts of ${a.eventId}, oldest first`}
          headers={['Attempt', 'Status code', 'Latency (ms)', 'Error', 'At']}
          empty="No attempt yet."
          rows={a.attemptLog.map((attempt) => [
            String(attempt.attempt),
            attempt.statusCode === null ? 'no answer' : String(attempt.statusCode),
            String(attempt.latencyMs),
            excerpt(attempt.error),
            when(attempt.createdAt),
          ])}
        />
      </div>
    </article>
  );
};

const WebhookPage = ({ c, view, notice }: { c: ConsoleContext; view: WebhookView; notice?: PageNotice }) => {
  const { endpoint, deliveries, next } = view;
  const a = endpoint.attributes;
  const after = c.req.query('after');
  return (
    <Layout title={`Webhook ${endpoint.id}`} viewer={c.get('viewer')} current="/console/webhooks">
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      <Fields
        fields={[
          ['URL', a.url],
          ['Description', a.description],
          ['Events', a.events.join(', ')],
          ['State', endpointState(endpoint)],
          ['Created', when(a.createdAt)],
          ['Updated', when(a.updatedAt)],
        ]}
      />
      <p class="help">
        Its signing secret is never shown in the console (no secret is). Your server gets it from the API: the answer to{' '}
        <code>POST /webhooks</code>, or a new one from <code>{`POST /webhooks/${endpoint.id}/rotate-secret`}</code>,
        which answers it once.
      </p>
      <form method="post" action={`/console/webhooks/${endpoint.id}/enabled`} class="action">
        <CsrfField viewer={c.get('viewer')} />
        <input type="hidden" name="enabled" value={a.enabled ? 'false' : 'true'} />
        <button type="submit">{a.enabled ? 'Disable endpoint' : 'Enable endpoint'}</button>
      </form>
      <section aria-labelledby="deliveries">
        <h2 id="deliveries">Deliveries</h2>
        <p class="help">Newest first. Resend delivers the delivery's event to this endpoint again.</p>
        {deliveries.length === 0 && <p class="empty">{after ? 'No more deliveries.' : 'No delivery yet.'}</p>}
        {deliveries.map((delivery) => (
          <DeliveryArticle c={c} endpointId={endpoint.id} delivery={delivery} />
        ))}
        <nav class="pages" aria-label="Pages of deliveries">
          {after && <a href={`/console/webhooks/${endpoint.id}`}>First page</a>}
          {next && (
            <a href={`/console/webhooks/${endpoint.id}?after=${encodeURIComponent(next)}`} rel="next">
              Next page
            </a>
          )}
        </nav>
      </section>
    </Layout>
  );
};

/**
 * GET /console/webhooks/{id}: the endpoint (never its secret) and its deliveries; POST …/events/{eventId}/resend
 * redelivers the event to this endpoint; POST …/enabled turns the endpoint off or on. Each ends in a redirect with
 * a notice, or the page with the API's refusal.
 */
export function registerWebhookPage(app: Hono<ConsoleEnv>, deps: GatewayDeps) {
  app.get('/console/webhooks/:id', async (c) => {
    const account = accountOf(c);
    if (!account) return c.redirect('/console/accounts', 303);
    const api = consoleApi(deps, account, c.get('requestId'));
    const view = await webhookView(api, c.req.param('id'), c.req.query('after') || undefined);
    if (!view) return c.html(<NotFound viewer={c.get('viewer')} />, 404);
    return c.html(<WebhookPage c={c} view={view} notice={doneNotice(c)} />);
  });

  app.post('/console/webhooks/:id/events/:eventId/resend', async (c) => {
    const account = accountOf(c);
    if (!account) return c.redirect('/console/accounts', 303);
    const api = consoleApi(deps, account, c.get('requestId'));
    const view = await webhookView(api, c.req.param('id'), undefined);
    if (!view) return c.html(<NotFound viewer={c.get('viewer')} />, 404);
    const eventId = c.req.param('eventId');
    const answer = await api.post(`/events/${encodeURIComponent(eventId)}/redeliver`, {
      data: { type: 'redeliveries', attributes: { endpointId: view.endpoint.id } },
    });
    if (answer.status === 202) {
      const record = encodeURIComponent(eventId);
      return c.redirect(`/console/webhooks/${view.endpoint.id}?done=resent&record=${record}`, 303);
    }
    return c.html(<WebhookPage c={c} view={view} notice={refused(`Resending ${eventId}`, answer)} />, 422);
  });

  app.post('/console/webhooks/:id/enabled', async (c) => {
    const account = accountOf(c);
    if (!account) return c.redirect('/console/accounts', 303);
    const api = consoleApi(deps, account, c.get('requestId'));
    const view = await webhookView(api, c.req.param('id'), undefined);
    if (!view) return c.html(<NotFound viewer={c.get('viewer')} />, 404);
    const enabled = c.get('form').enabled === 'true';
    const answer = await api.put(`/webhooks/${view.endpoint.id}`, {
      data: { type: 'webhooks', attributes: { enabled } },
    });
    if (answer.status === 200) {
      return c.redirect(`/console/webhooks/${view.endpoint.id}?done=${enabled ? 'enabled' : 'disabled'}`, 303);
    }
    const what = enabled ? 'Enabling the endpoint' : 'Disabling the endpoint';
    return c.html(<WebhookPage c={c} view={view} notice={refused(what, answer)} />, 422);
  });
}
