import { eventTypes } from '@pps/shared/events';
import type { Hono } from 'hono';
import type { GatewayDeps } from '../../deps';
import { when } from '../components/format';
import { CsrfField, Layout, Notice } from '../components/layout';
import { Table } from '../components/table';
import { type ApiAnswer, consoleApi, refusalsOf } from '../console-api';
import { accountOf, type ConsoleContext, type ConsoleEnv } from '../console-env';

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
  registerNewEndpoint(app, deps);
  app.get('/console/webhooks', async (c) => {
    const account = accountOf(c);
    if (!account) return c.redirect('/console/accounts', 303);
    const api = consoleApi(deps, account, c.get('requestId'));
    const after = c.req.query('after') || undefined;
    const query = new URLSearchParams({ limit: '50' });
    if (after) query.set('startingAfter', after);
    const answer = await api.get<WebhookList>(`/webhooks?${query}`);
    const endpoints = answer.status === 200 ? answer.body.data : [];
    const errors = refusalsOf(answer);
    const last = endpoints.at(-1)?.id;
    const next = answer.status === 200 && answer.body.meta.hasMore && last ? last : undefined;
    return c.html(
      <Layout title="Webhooks" viewer={c.get('viewer')} current="/console/webhooks">
        <p>The URLs the platform posts this account's events to, each with every delivery and its attempts.</p>
        <p>
          <a href="/console/webhooks/new">New endpoint</a>
        </p>
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

// ── New endpoint ──────────────────────────────────────────────────────────────

/** What the form says of an endpoint to create: as typed, kept when the API refuses it so nothing is typed twice. */
type EndpointDraft = { url: string; description: string; events: string[] };

/** The events a form can subscribe to: every type of the catalogue, or `*` for all (alone). */
const ALL_EVENTS = '*';
const SUBSCRIBABLE = [ALL_EVENTS, ...eventTypes] as const;

/**
 * Each event is a checkbox of its own name (`event:payment.created`): the console reads a posted form as one value
 * a name, so checkboxes sharing a name would keep only the last.
 */
const eventField = (type: string) => `event:${type}`;
const eventInputId = (type: string) => (type === ALL_EVENTS ? 'event-all' : `event-${type.replace('.', '-')}`);

const draftOf = (form: Record<string, string>): EndpointDraft => ({
  url: (form.url ?? '').trim(),
  description: (form.description ?? '').trim(),
  events: SUBSCRIBABLE.filter((type) => form[eventField(type)] === 'on'),
});

/** The field of the form an API error is about (its pointer), or undefined for the form as a whole. */
type DraftField = 'url' | 'events' | 'description';
type FieldErrors = Partial<Record<DraftField, string[]>> & { form?: string[] };
type ErrorWithSource = { detail: string; source?: { pointer?: string } };

function fieldErrorsOf(answer: ApiAnswer): FieldErrors {
  const errors: FieldErrors = {};
  for (const error of (answer.body?.errors ?? []) as ErrorWithSource[]) {
    const field = /^\/data\/attributes\/(url|events|description)(?:\/|$)/.exec(error.source?.pointer ?? '')?.[1] as
      | DraftField
      | undefined;
    const key = field ?? 'form';
    errors[key] = [...(errors[key] ?? []), error.detail];
  }
  return errors;
}

const ErrorText = ({ id, errors }: { id: string; errors?: string[] }) =>
  errors?.length ? (
    <p id={id} class="notice error">
      {errors.join(' ')}
    </p>
  ) : null;

/** The form: URL, the events as checkboxes of the catalogue, a description; each API error beside its field. */
const NewEndpointForm = ({
  c,
  draft,
  errors = {},
}: {
  c: ConsoleContext;
  draft: EndpointDraft;
  errors?: FieldErrors;
}) => (
  <form method="post" action="/console/webhooks" aria-label="New endpoint">
    <CsrfField viewer={c.get('viewer')} />
    <div class="field">
      <label for="url">URL</label>
      <input
        id="url"
        name="url"
        type="url"
        required
        maxlength={2048}
        value={draft.url}
        placeholder="https://example.com/hooks/pps"
        aria-invalid={errors.url ? 'true' : undefined}
        aria-describedby={errors.url ? 'url-error' : undefined}
      />
      <ErrorText id="url-error" errors={errors.url} />
    </div>
    <fieldset aria-describedby={errors.events ? 'events-error' : 'events-help'}>
      <legend>Events</legend>
      <p id="events-help" class="help">
        The event types posted to this URL; "All events" alone for every type, those to come included.
      </p>
      <ErrorText id="events-error" errors={errors.events} />
      {SUBSCRIBABLE.map((type) => (
        <div>
          <input
            type="checkbox"
            id={eventInputId(type)}
            name={eventField(type)}
            value="on"
            checked={draft.events.includes(type)}
          />{' '}
          <label for={eventInputId(type)}>{type === ALL_EVENTS ? 'All events (*)' : type}</label>
        </div>
      ))}
    </fieldset>
    <div class="field">
      <label for="description">Description</label>
      <input
        id="description"
        name="description"
        maxlength={500}
        value={draft.description}
        aria-invalid={errors.description ? 'true' : undefined}
        aria-describedby={errors.description ? 'description-error' : undefined}
      />
      <ErrorText id="description-error" errors={errors.description} />
    </div>
    <div class="actions">
      <button type="submit">Create endpoint</button>
      <a href="/console/webhooks">Cancel</a>
    </div>
  </form>
);

const NewEndpointPage = ({ c, draft, errors }: { c: ConsoleContext; draft: EndpointDraft; errors?: FieldErrors }) => (
  <Layout title="New webhook endpoint" viewer={c.get('viewer')} current="/console/webhooks">
    {errors && (
      <Notice kind="error">
        {['The endpoint was not created.', ...(errors.form ?? []), 'See the fields below.'].join(' ')}
      </Notice>
    )}
    <NewEndpointForm c={c} draft={draft} errors={errors} />
  </Layout>
);

/**
 * GET /console/webhooks/new: the form; POST /console/webhooks: `POST /webhooks` for the signed-in account, then a
 * 303 to the new endpoint's page (so a reload does not post again), or the form again with the API's errors by field
 * (422). The signing secret the API answers with is not shown: the console renders no secret (docs/decisions.md, The
 * console); the endpoint's page says how to get it.
 */
function registerNewEndpoint(app: Hono<ConsoleEnv>, deps: GatewayDeps) {
  app.get('/console/webhooks/new', (c) => {
    if (!accountOf(c)) return c.redirect('/console/accounts', 303);
    return c.html(<NewEndpointPage c={c} draft={{ url: '', description: '', events: [] }} />);
  });

  app.post('/console/webhooks', async (c) => {
    const account = accountOf(c);
    if (!account) return c.redirect('/console/accounts', 303);
    const draft = draftOf(c.get('form'));
    const answer = await consoleApi(deps, account, c.get('requestId')).post<{ data: WebhookEndpoint }>('/webhooks', {
      data: {
        type: 'webhooks',
        attributes: { url: draft.url, events: draft.events, description: draft.description || undefined },
      },
    });
    if (answer.status === 201) return c.redirect(`/console/webhooks/${answer.body.data.id}?done=created`, 303);
    return c.html(<NewEndpointPage c={c} draft={draft} errors={fieldErrorsOf(answer)} />, 422);
  });
}
