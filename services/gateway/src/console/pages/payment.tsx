import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import type { GatewayDeps } from '../../deps';
import { type DeliveriesOfEvent, EventDeliveries, type EventDelivery } from '../components/event-deliveries';
import { centsOf, dollars, when } from '../components/format';
import { CsrfField, Layout, Notice } from '../components/layout';
import { type LedgerEntry, LedgerPostings } from '../components/ledger-postings';
import { NotFound } from '../components/not-found';
import { Fields, Table } from '../components/table';
import { type ConsoleApi, consoleApi, refusalsOf } from '../console-api';
import { accountOf, type ConsoleContext, type ConsoleEnv } from '../console-env';

type Payment = {
  id: string;
  attributes: {
    paymentType: string;
    merchantId: string;
    parentPaymentId?: string;
    status: string;
    createdAt: string;
    settledAt: string | null;
    transaction: {
      amount: string;
      currency: string;
      invoice?: string;
      code: string;
      message: string;
      fee: string;
      net: string;
      gross: string;
      avsResult?: string | null;
      authCode?: string | null;
    };
    card?: { brand: string; last4: string; expiry: string; holder: string };
    bank?: { bankName: string; last4: string };
    refunds?: { id: string; type: string; amount: string; status: string; createdAt: string }[];
    refundableAmount: string;
    voidableUntil: string | null;
    authorizationExpiresAt?: string;
    capturedAt?: string;
    voidReason?: string;
    threeDSecure?: { flow: string | null; result: string | null; version: string; eci: string | null };
    disputes?: string[];
    miscData: string | null;
  };
};
type Event = { id: string; attributes: { type: string; createdAt: string; sequence: number } };
type Dispute = { id: string; attributes: { status: string; reason: string; amount: string; dueBy: string } };

/**
 * Each event's deliveries (`GET /events/{id}/deliveries`, oldest event first), and the URL of every endpoint they
 * went to that is still there (`GET /webhooks/{id}`; a deleted one answers 404 and has none).
 */
async function deliveriesOf(api: ConsoleApi, events: Event[]) {
  const answers = await Promise.all(
    events.map((event) =>
      api.get<{ data: EventDelivery[] }>(`/events/${encodeURIComponent(event.id)}/deliveries?limit=100`),
    ),
  );
  const byEvent: DeliveriesOfEvent[] = events.map((event, index) => ({
    eventId: event.id,
    eventType: event.attributes.type,
    deliveries: answers[index]?.status === 200 ? answers[index].body.data : [],
  }));
  const endpointIds = [...new Set(byEvent.flatMap((each) => each.deliveries.map((d) => d.attributes.endpointId)))];
  const endpoints = await Promise.all(
    endpointIds.map((endpointId) =>
      api.get<{ data: { id: string; attributes: { url: string } } }>(`/webhooks/${encodeURIComponent(endpointId)}`),
    ),
  );
  const urls = new Map<string, string>();
  for (const answer of endpoints)
    if (answer.status === 200) urls.set(answer.body.data.id, answer.body.data.attributes.url);
  return { byEvent, urls };
}

/** What the page shows of a payment: the payment, its events (oldest first) and their deliveries, disputes, ledger. */
async function paymentView(api: ConsoleApi, id: string) {
  const payment = await api.get<{ data: Payment }>(`/payments/${encodeURIComponent(id)}`);
  if (payment.status !== 200) return undefined;
  const [events, disputes, ledger] = await Promise.all([
    api.get<{ data: Event[] }>(`/events?resourceId=${encodeURIComponent(id)}&limit=100`),
    payment.body.data.attributes.disputes?.length
      ? api.get<{ data: Dispute[] }>(`/disputes?paymentId=${encodeURIComponent(id)}&limit=100`)
      : undefined,
    api.get<{ data: LedgerEntry[] }>(`/payments/${encodeURIComponent(id)}/ledger-entries`),
  ]);
  const timeline = events.status === 200 ? [...events.body.data].reverse() : [];
  return {
    payment: payment.body.data,
    events: timeline,
    disputes: disputes?.status === 200 ? disputes.body.data : [],
    ledger: ledger.status === 200 ? ledger.body.data : [],
    deliveries: await deliveriesOf(api, timeline),
  };
}

type Action = 'refund' | 'capture' | 'void';
const ACTION_LABEL: Record<Action, string> = { refund: 'Refund', capture: 'Capture', void: 'Void' };

/**
 * A payment's 3-D Secure, as an operator reads it: how the cardholder was asked, and what came of it. The challenge
 * link itself is never shown: it is the cardholder's, a credential while it is open.
 */
function authenticationOf(status: string, threeDSecure: NonNullable<Payment['attributes']['threeDSecure']>): string {
  const flow = threeDSecure.flow === null ? 'not enrolled' : threeDSecure.flow;
  const result =
    status === 'requires_action' ? "waiting for the cardholder's challenge" : (threeDSecure.result ?? 'no result');
  const eci = threeDSecure.eci ? `, ECI ${threeDSecure.eci}` : '';
  return `${flow}: ${result.replaceAll('_', ' ')}${eci} (version ${threeDSecure.version})`;
}

/** The operations the payment accepts now, as the API's own fields say (the API still decides, and may refuse). */
function actionsOf(payment: Payment): Action[] {
  const { status, voidableUntil, refundableAmount, paymentType } = payment.attributes;
  if (paymentType !== 'card' && paymentType !== 'ACH') return [];
  if (status === 'authorized') return ['capture', 'void'];
  const actions: Action[] = [];
  if (voidableUntil) actions.push('void');
  if (BigInt(refundableAmount) > 0n) actions.push('refund');
  return actions;
}

/** An action's form: its amount (prefilled, fixed for a void), and the idempotency key made when the page was. */
const ActionForm = ({ c, payment, action }: { c: ConsoleContext; payment: Payment; action: Action }) => {
  const fixed = action === 'void';
  const amount = action === 'refund' ? payment.attributes.refundableAmount : payment.attributes.transaction.amount;
  return (
    <form method="post" action={`/console/payments/${payment.id}/${action}`} class="action">
      <CsrfField viewer={c.get('viewer')} />
      <input type="hidden" name="requestId" value={randomUUID()} />
      {fixed ? (
        <input type="hidden" name="amount" value={dollars(amount).replace(/[$,]/g, '')} />
      ) : (
        <>
          <label for={`${action}-amount`}>{`${ACTION_LABEL[action]} amount (USD)`}</label>
          <input
            id={`${action}-amount`}
            name="amount"
            inputmode="decimal"
            required
            value={dollars(amount).replace(/[$,]/g, '')}
          />
        </>
      )}
      <button type="submit">{`${ACTION_LABEL[action]}…`}</button>
    </form>
  );
};

type PageNotice = { kind: 'error' | 'done'; text: string };

/** The notice a redirect after an action asks for (`?done=refund&record=pay_…`), from known words only. */
const doneNotice = (c: ConsoleContext): PageNotice | undefined => {
  const done = c.req.query('done');
  const record = c.req.query('record');
  if (!done || !Object.hasOwn(ACTION_LABEL, done) || !record) return undefined;
  return { kind: 'done', text: `${ACTION_LABEL[done as Action]} recorded: ${record}` };
};

const PaymentPage = ({
  c,
  view,
  notice,
}: {
  c: ConsoleContext;
  view: NonNullable<Awaited<ReturnType<typeof paymentView>>>;
  notice?: PageNotice;
}) => {
  const { payment, events, disputes, ledger, deliveries } = view;
  const a = payment.attributes;
  const actions = actionsOf(payment);
  return (
    <Layout title={`Payment ${payment.id}`} viewer={c.get('viewer')} current="/console/payments">
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      <Fields
        fields={[
          ['Status', <span class={`status ${a.status}`}>{a.status}</span>],
          ['Type', a.paymentType],
          ['Amount', dollars(a.transaction.amount)],
          ['Fee', dollars(a.transaction.fee)],
          ['Net', dollars(a.transaction.net)],
          ['Refundable', dollars(a.refundableAmount)],
          ['Invoice', a.transaction.invoice],
          ['Merchant', a.merchantId],
          [
            'Parent payment',
            a.parentPaymentId && <a href={`/console/payments/${a.parentPaymentId}`}>{a.parentPaymentId}</a>,
          ],
          ['Card', a.card && `${a.card.brand} ending ${a.card.last4}, ${a.card.holder}`],
          ['Bank account', a.bank && `${a.bank.bankName} ending ${a.bank.last4}`],
          ['Result', `${a.transaction.code} ${a.transaction.message}`],
          ['AVS', a.transaction.avsResult],
          ['3-D Secure', a.threeDSecure && authenticationOf(a.status, a.threeDSecure)],
          ['Void reason', a.voidReason],
          ['Created', when(a.createdAt)],
          ['Settled', a.settledAt && when(a.settledAt)],
          ['Void window ends', a.voidableUntil && when(a.voidableUntil)],
          ['Authorization expires', a.authorizationExpiresAt && when(a.authorizationExpiresAt)],
          ['Captured', a.capturedAt && when(a.capturedAt)],
          ['Metadata', a.miscData],
        ]}
      />
      {actions.length > 0 && (
        <section aria-labelledby="actions">
          <h2 id="actions">Actions</h2>
          {actions.map((action) => (
            <ActionForm c={c} payment={payment} action={action} />
          ))}
        </section>
      )}
      <section aria-labelledby="timeline">
        <h2 id="timeline">Timeline</h2>
        <ol class="timeline">
          {events.map((event) => (
            <li>
              <time datetime={event.attributes.createdAt}>{when(event.attributes.createdAt)}</time>{' '}
              <strong>{event.attributes.type}</strong> <span class="muted">{event.id}</span>
            </li>
          ))}
        </ol>
      </section>
      <section aria-labelledby="refunds">
        <h2 id="refunds">Refunds and voids</h2>
        <Table
          caption="Refunds and voids of this payment, oldest first"
          headers={['Record', 'Type', 'Amount', 'Status', 'Created']}
          empty="None."
          rows={(a.refunds ?? []).map((refund) => [
            <a href={`/console/payments/${refund.id}`}>{refund.id}</a>,
            refund.type,
            dollars(refund.amount),
            refund.status,
            when(refund.createdAt),
          ])}
        />
      </section>
      <section aria-labelledby="disputes">
        <h2 id="disputes">Disputes</h2>
        <Table
          caption="Disputes of this payment"
          headers={['Dispute', 'Reason', 'Amount', 'Status', 'Respond by']}
          empty="None."
          rows={disputes.map((dispute) => [
            dispute.id,
            dispute.attributes.reason,
            dollars(dispute.attributes.amount),
            dispute.attributes.status,
            when(dispute.attributes.dueBy),
          ])}
        />
      </section>
      <section aria-labelledby="ledger">
        <h2 id="ledger">Ledger postings</h2>
        <LedgerPostings entries={ledger} pageId={payment.id} />
      </section>
      <section aria-labelledby="deliveries">
        <h2 id="deliveries">Webhook deliveries</h2>
        <EventDeliveries
          events={deliveries.byEvent}
          urls={deliveries.urls}
          caption="Deliveries of this payment's events to your webhook endpoints, oldest event first"
        />
      </section>
    </Layout>
  );
};

/** The body of the API call an action makes: refunds and voids are `refund` (the API decides which), captures `capture`. */
const actionBody = (action: Action, paymentId: string, requestId: string, cents: string) => ({
  data: {
    type: 'payments',
    requestId,
    attributes: {
      paymentType: action === 'capture' ? 'capture' : 'refund',
      parentPaymentId: paymentId,
      transaction: { amount: cents, currency: 'USD' },
    },
  },
});

/** GET /console/payments/{id}; POST …/{refund,capture,void}: first a confirmation, then the call, idempotent by the form's key. */
export function registerPaymentPage(app: Hono<ConsoleEnv>, deps: GatewayDeps) {
  app.get('/console/payments/:id', async (c) => {
    const account = accountOf(c);
    if (!account) return c.redirect('/console/accounts', 303);
    const view = await paymentView(consoleApi(deps, account, c.get('requestId')), c.req.param('id'));
    if (!view) return c.html(<NotFound viewer={c.get('viewer')} />, 404);
    return c.html(<PaymentPage c={c} view={view} notice={doneNotice(c)} />);
  });

  app.post('/console/payments/:id/:action{refund|capture|void}', async (c) => {
    const account = accountOf(c);
    if (!account) return c.redirect('/console/accounts', 303);
    const action = c.req.param('action') as Action;
    const id = c.req.param('id');
    const api = consoleApi(deps, account, c.get('requestId'));
    const view = await paymentView(api, id);
    if (!view) return c.html(<NotFound viewer={c.get('viewer')} />, 404);
    const form = c.get('form');
    const cents = centsOf(form.amount ?? '');
    const requestId = /^[0-9a-f-]{36}$/i.test(form.requestId ?? '') ? (form.requestId as string) : undefined;
    if (!cents || cents === '0' || !requestId) {
      const text = 'Give an amount in dollars, like 5 or 5.25, and send the form from the payment page.';
      return c.html(<PaymentPage c={c} view={view} notice={{ kind: 'error', text }} />, 400);
    }
    const label = `${ACTION_LABEL[action]} ${dollars(cents)} of ${id}`;
    if (form.confirm !== 'yes') {
      return c.html(
        <Layout title={`${label}?`} viewer={c.get('viewer')} current="/console/payments">
          <p>{action === 'capture' ? 'The card will be charged this amount.' : 'This cannot be undone.'}</p>
          <form method="post" action={`/console/payments/${id}/${action}`}>
            <CsrfField viewer={c.get('viewer')} />
            <input type="hidden" name="requestId" value={requestId} />
            <input type="hidden" name="amount" value={form.amount} />
            <input type="hidden" name="confirm" value="yes" />
            <button type="submit">{`Confirm ${ACTION_LABEL[action].toLowerCase()}`}</button>
          </form>
          <p>
            <a href={`/console/payments/${id}`}>Cancel</a>
          </p>
        </Layout>,
      );
    }
    const answer = await api.post<{ data: { id: string; attributes: { status: string } } }>(
      '/payments',
      actionBody(action, id, requestId, cents),
    );
    if (answer.status === 201) {
      const record = encodeURIComponent(answer.body.data.id);
      return c.redirect(`/console/payments/${encodeURIComponent(id)}?done=${action}&record=${record}`, 303);
    }
    const refreshed = (await paymentView(api, id)) ?? view;
    const text = `${label} was refused: ${refusalsOf(answer).join(' ')}`;
    return c.html(<PaymentPage c={c} view={refreshed} notice={{ kind: 'error', text }} />, 422);
  });
}
