import { eventTypes } from '@pps/shared/events';
import type { Hono } from 'hono';
import type { GatewayDeps } from '../../deps';
import { redactJson } from '../../request-log/model/redact';
import { CodeBlock } from '../components/code';
import { FilterInput, FilterSelect, firstPageHref, nextPageHref } from '../components/filter-fields';
import { when } from '../components/format';
import { CsrfField, Layout, Notice } from '../components/layout';
import { NotFound } from '../components/not-found';
import { Fields, Table } from '../components/table';
import { type ConsoleApi, consoleApi, refusalsOf } from '../console-api';
import { accountOf, type ConsoleContext, type ConsoleEnv } from '../console-env';

type Event = {
  id: string;
  attributes: {
    type: string;
    resourceType: string;
    resourceId: string;
    sequence: number;
    payload: Record<string, unknown>;
    createdAt: string;
  };
};
type EventList = { data: Event[]; meta: { hasMore: boolean } };

/** The filters as the page's form names them, which are the API's own (`GET /events?type=&resourceId=`). */
type EventFilters = { type?: string; resourceId?: string };

const filtersOf = (c: ConsoleContext): EventFilters => ({
  type: c.req.query('type')?.trim() || undefined,
  resourceId: c.req.query('resourceId')?.trim() || undefined,
});

/** A page of the account's events, newest first, by the filters and from the cursor `after`; the API's refusal. */
async function eventsPage(api: ConsoleApi, filters: EventFilters, after: string | undefined) {
  const query = new URLSearchParams({ limit: '50' });
  if (filters.type) query.set('type', filters.type);
  if (filters.resourceId) query.set('resourceId', filters.resourceId);
  if (after) query.set('startingAfter', after);
  const answer = await api.get<EventList>(`/events?${query}`);
  if (answer.status !== 200) return { events: [], hasMore: false, errors: refusalsOf(answer) };
  return { events: answer.body.data, hasMore: answer.body.meta.hasMore, errors: [] };
}

/** The console page of the resources that have one; other resources (merchants, endpoints) are shown by id. */
const RESOURCE_PAGES: Record<string, string> = {
  payments: '/console/payments',
  disputes: '/console/disputes',
  payouts: '/console/payouts',
};

/** The event's resource: a link to its console page when it has one, else its id as text. */
const resourceCell = (event: Event) => {
  const { resourceType, resourceId } = event.attributes;
  const base = Object.hasOwn(RESOURCE_PAGES, resourceType) ? RESOURCE_PAGES[resourceType] : undefined;
  return base ? <a href={`${base}/${encodeURIComponent(resourceId)}`}>{resourceId}</a> : resourceId;
};

/** The filter form: a GET, so it works without script and a filtered list is a link. */
const EventFiltersForm = ({ filters }: { filters: EventFilters }) => (
  <form method="get" action="/console/events" class="filters" aria-label="Filter events">
    <FilterSelect id="type" label="Type" value={filters.type} options={eventTypes} />
    <FilterInput id="resourceId" label="Resource id" value={filters.resourceId} placeholder="pay_…" />
    <div class="actions">
      <button type="submit">Filter</button>
      <a href="/console/events">Clear</a>
    </div>
  </form>
);

type PageNotice = { kind: 'error' | 'done'; text: string };

/** The notice the redirect after a redelivery asks for (`?done=redelivered&to=2`), from known words and digits only. */
const doneNotice = (c: ConsoleContext): PageNotice | undefined => {
  if (c.req.query('done') !== 'redelivered') return undefined;
  const to = c.req.query('to') ?? '';
  if (!/^\d{1,4}$/.test(to)) return undefined;
  if (to === '0') return { kind: 'done', text: 'No endpoint takes this event: nothing was redelivered.' };
  return { kind: 'done', text: `Redelivery queued to ${to} endpoint${to === '1' ? '' : 's'}.` };
};

/**
 * The payload as the page shows it: indented, with every secret redacted by name and by shape as the request log's
 * bodies are (no page renders a card number or a key, wherever a client typed it). `payload` is this request's own
 * parse of the API's answer, so it is changed in place.
 */
const shownPayload = (payload: Record<string, unknown>) => JSON.stringify(redactJson(payload), null, 2);

const EventPage = ({ c, event, notice }: { c: ConsoleContext; event: Event; notice?: PageNotice }) => {
  const a = event.attributes;
  return (
    <Layout title={`Event ${event.id}`} viewer={c.get('viewer')} current="/console/events">
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      <Fields
        fields={[
          ['Type', a.type],
          ['Resource', resourceCell(event)],
          ['Resource type', a.resourceType],
          ['Sequence', String(a.sequence)],
          ['Created', when(a.createdAt)],
        ]}
      />
      <form method="post" action={`/console/events/${event.id}/redeliver`} class="action">
        <CsrfField viewer={c.get('viewer')} />
        <button type="submit">Redeliver…</button>
      </form>
      <section aria-labelledby="payload">
        <h2 id="payload">Payload</h2>
        <p class="help">
          The body posted to webhook endpoints; a secret a client put in free text (a card number in an invoice, a key
          in metadata) is redacted here, as the request log redacts it.
        </p>
        <CodeBlock label="Payload of the event" text={shownPayload(a.payload)} />
      </section>
    </Layout>
  );
};

const eventOf = async (api: ConsoleApi, id: string) => {
  const answer = await api.get<{ data: Event }>(`/events/${encodeURIComponent(id)}`);
  return answer.status === 200 ? answer.body.data : undefined;
};

/**
 * GET /console/events: the account's events, newest first, by cursor pages, filtered by type and resource id.
 * GET /console/events/{id}: the event and its payload; POST …/redeliver delivers it again, after a confirmation, to
 * every enabled endpoint that has a delivery of it or takes its type (`POST /events/{id}/redeliver` without an
 * endpoint). Another account's event is the 404 page (the API's 403 or 404 alike).
 */
export function registerEventsPages(app: Hono<ConsoleEnv>, deps: GatewayDeps) {
  app.get('/console/events', async (c) => {
    const account = accountOf(c);
    if (!account) return c.redirect('/console/accounts', 303);
    const api = consoleApi(deps, account, c.get('requestId'));
    const filters = filtersOf(c);
    const after = c.req.query('after') || undefined;
    const { events, hasMore, errors } = await eventsPage(api, filters, after);
    const last = events.at(-1)?.id;
    return c.html(
      <Layout title="Events" viewer={c.get('viewer')} current="/console/events">
        <p>Everything that happened to this account's resources: the events webhook endpoints are sent.</p>
        <EventFiltersForm filters={filters} />
        {errors.map((error) => (
          <Notice kind="error">{error}</Notice>
        ))}
        <Table
          caption="Events, newest first"
          headers={['Event', 'Type', 'Resource', 'Created']}
          empty={errors.length > 0 ? 'Change the filters to see events.' : 'No event matches these filters.'}
          rows={events.map((event) => [
            <a href={`/console/events/${event.id}`}>{event.id}</a>,
            event.attributes.type,
            resourceCell(event),
            when(event.attributes.createdAt),
          ])}
        />
        <nav class="pages" aria-label="Pages">
          {after && <a href={firstPageHref(c.req.url)}>First page</a>}
          {hasMore && last && (
            <a href={nextPageHref(c.req.url, last)} rel="next">
              Next page
            </a>
          )}
        </nav>
      </Layout>,
    );
  });

  app.get('/console/events/:id', async (c) => {
    const account = accountOf(c);
    if (!account) return c.redirect('/console/accounts', 303);
    const event = await eventOf(consoleApi(deps, account, c.get('requestId')), c.req.param('id'));
    if (!event) return c.html(<NotFound viewer={c.get('viewer')} />, 404);
    return c.html(<EventPage c={c} event={event} notice={doneNotice(c)} />);
  });

  app.post('/console/events/:id/redeliver', async (c) => {
    const account = accountOf(c);
    if (!account) return c.redirect('/console/accounts', 303);
    const api = consoleApi(deps, account, c.get('requestId'));
    const event = await eventOf(api, c.req.param('id'));
    if (!event) return c.html(<NotFound viewer={c.get('viewer')} />, 404);
    if (c.get('form').confirm !== 'yes') return c.html(<ConfirmRedelivery c={c} event={event} />);
    const answer = await api.post<{ data: unknown[] }>(`/events/${event.id}/redeliver`, {});
    if (answer.status === 202) {
      return c.redirect(`/console/events/${event.id}?done=redelivered&to=${answer.body.data.length}`, 303);
    }
    const text = `Redelivering ${event.id} was refused: ${refusalsOf(answer).join(' ')}`;
    return c.html(<EventPage c={c} event={event} notice={{ kind: 'error', text }} />, 422);
  });
}

/** What Redeliver does, said before it is done. */
const ConfirmRedelivery = ({ c, event }: { c: ConsoleContext; event: Event }) => (
  <Layout title={`Redeliver ${event.id}?`} viewer={c.get('viewer')} current="/console/events">
    <p>
      {`The ${event.attributes.type} event is delivered again to every enabled endpoint that has a delivery of it or ` +
        'takes its type: receivers get the same event again.'}
    </p>
    <form method="post" action={`/console/events/${event.id}/redeliver`}>
      <CsrfField viewer={c.get('viewer')} />
      <input type="hidden" name="confirm" value="yes" />
      <button type="submit">Confirm redelivery</button>
    </form>
    <p>
      <a href={`/console/events/${event.id}`}>Cancel</a>
    </p>
  </Layout>
);
