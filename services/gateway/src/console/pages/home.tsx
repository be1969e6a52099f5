import type { Hono } from 'hono';
import type { GatewayDeps } from '../../deps';
import { Chart } from '../components/chart';
import { dollars, when } from '../components/format';
import { Layout, Notice } from '../components/layout';
import { Fields, Table } from '../components/table';
import { type ConsoleApi, consoleApi, refusalsOf } from '../console-api';
import { accountOf, type ConsoleEnv } from '../console-env';
import { type DisputeSummary, needingResponse } from './disputes';
import type { WebhookEndpoint } from './webhooks';

type DayFigures = { date: string; attempts: number; approved: number; declined: number; approvedAmount: string };
type DailyReport = { data: { attributes: { days: DayFigures[]; totals: Omit<DayFigures, 'date'> } } };
type Balance = { data: { attributes: { pending: string; available: string; inTransit: string } } };
type PayoutSummary = {
  id: string;
  attributes: { merchantId: string; amount: string; status: string; createdAt: string };
};
type PaymentSummary = {
  id: string;
  attributes: { merchantId: string; transaction: { amount: string }; authorizationExpiresAt?: string };
};

/** How many of each kind "Needs attention" lists; the section links to the full list. */
const ATTENTION_ROWS = 5;
const DAY_MS = 86_400_000;

/** "82.5%" from two counts, by integer arithmetic; "—" when nothing was tried. */
function approvalRate(approved: number, attempts: number) {
  if (attempts === 0) return '—';
  const tenths = Math.round((approved * 1000) / attempts);
  return `${Math.floor(tenths / 10)}.${tenths % 10}%`;
}

/**
 * What needs someone soon: disputes due soonest, payouts the bank returned, webhook endpoints the platform disabled,
 * and authorizations that expire within a day (created more than the authorization window less a day ago, by the
 * account's clock), each read from the API's own lists.
 */
async function needsAttention(api: ConsoleApi, deps: GatewayDeps, now: number) {
  const expiringCreatedBefore = new Date(now - (deps.config.CARD_AUTHORIZATION_DAYS - 1) * DAY_MS).toISOString();
  const authorized = new URLSearchParams({ status: 'authorized', createdLte: expiringCreatedBefore, limit: '5' });
  const [disputes, payouts, endpoints, authorizations] = await Promise.all([
    needingResponse(api),
    api.get<{ data: PayoutSummary[] }>(`/payouts?status=failed&limit=${ATTENTION_ROWS}`),
    api.get<{ data: WebhookEndpoint[] }>('/webhooks?limit=100'),
    api.get<{ data: PaymentSummary[] }>(`/payments?${authorized}`),
  ]);
  return {
    disputes: disputes.disputes.slice(0, ATTENTION_ROWS),
    payouts: payouts.status === 200 ? payouts.body.data : [],
    endpoints: endpoints.status === 200 ? endpoints.body.data.filter((endpoint) => !endpoint.attributes.enabled) : [],
    authorizations: authorizations.status === 200 ? authorizations.body.data : [],
    errors: [...disputes.errors, ...refusalsOf(payouts), ...refusalsOf(endpoints), ...refusalsOf(authorizations)],
  };
}

const DisputesDue = ({ disputes }: { disputes: DisputeSummary[] }) => (
  <Table
    caption="Disputes due soonest"
    headers={['Dispute', 'Payment', 'Amount', 'Due by']}
    empty="No dispute needs a response."
    rows={disputes.map((dispute) => [
      <a href={`/console/disputes/${dispute.id}`}>{dispute.id}</a>,
      <a href={`/console/payments/${dispute.attributes.paymentId}`}>{dispute.attributes.paymentId}</a>,
      dollars(dispute.attributes.amount),
      when(dispute.attributes.dueBy),
    ])}
  />
);

/** GET /console: the account's last 30 days, its balances and what needs attention. Operators go to the accounts. */
export function registerHomePages(app: Hono<ConsoleEnv>, deps: GatewayDeps) {
  app.get('/console', async (c) => {
    const account = accountOf(c);
    if (!account) return c.redirect('/console/accounts', 303);
    const api = consoleApi(deps, account, c.get('requestId'));
    const now = Date.now() + account.clockOffsetSeconds * 1000;
    const [daily, balance, attention] = await Promise.all([
      api.get<DailyReport>('/reports/daily'),
      api.get<Balance>('/balance'),
      needsAttention(api, deps, now),
    ]);
    const errors = [...refusalsOf(daily), ...refusalsOf(balance), ...attention.errors];
    const days = daily.status === 200 ? daily.body.data.attributes.days : [];
    const totals = daily.status === 200 ? daily.body.data.attributes.totals : undefined;
    const balances = balance.status === 200 ? balance.body.data.attributes : undefined;
    return c.html(
      <Layout title="Home" viewer={c.get('viewer')} current="/console" charts>
        {errors.map((error) => (
          <Notice kind="error">{error}</Notice>
        ))}
        <section aria-labelledby="last-30-days">
          <h2 id="last-30-days">Last 30 days</h2>
          {totals && (
            <Fields
              fields={[
                ['Approved volume', dollars(totals.approvedAmount)],
                ['Payments', String(totals.attempts)],
                ['Approval rate', approvalRate(totals.approved, totals.attempts)],
              ]}
            />
          )}
          <Chart
            title="Approved volume and payments per day"
            x={days.map((day) => `${day.date}T12:00:00Z`)}
            xLabel="Day"
            rows={days.map((day) => day.date)}
            series={[
              { label: 'Approved volume', unit: 'cents', values: days.map((day) => Number(day.approvedAmount)) },
              { label: 'Payments', unit: 'count', values: days.map((day) => day.attempts) },
            ]}
          />
        </section>
        <section aria-labelledby="balances">
          <h2 id="balances">Balances</h2>
          {balances && (
            <Fields
              fields={[
                ['Pending', dollars(balances.pending)],
                ['Available', dollars(balances.available)],
                ['In transit', dollars(balances.inTransit)],
              ]}
            />
          )}
          <p>
            Summed over every merchant; each merchant's are on <a href="/console/merchants">Merchants</a>.
          </p>
        </section>
        <section aria-labelledby="needs-attention">
          <h2 id="needs-attention">Needs attention</h2>
          <DisputesDue disputes={attention.disputes} />
          <Table
            caption="Failed payouts"
            headers={['Payout', 'Merchant', 'Amount', 'Created']}
            empty="No payout failed."
            rows={attention.payouts.map((payout) => [
              <a href={`/console/payouts/${payout.id}`}>{payout.id}</a>,
              <a href={`/console/merchants/${payout.attributes.merchantId}`}>{payout.attributes.merchantId}</a>,
              dollars(payout.attributes.amount),
              when(payout.attributes.createdAt),
            ])}
          />
          <Table
            caption="Disabled webhook endpoints"
            headers={['Endpoint', 'URL', 'Reason']}
            empty="Every webhook endpoint is enabled."
            rows={attention.endpoints.map((endpoint) => [
              <a href={`/console/webhooks/${endpoint.id}`}>{endpoint.id}</a>,
              endpoint.attributes.url,
              endpoint.attributes.disabledReason ?? '—',
            ])}
          />
          <Table
            caption="Authorizations expiring within a day"
            headers={['Payment', 'Merchant', 'Amount', 'Expires']}
            empty="No authorization expires within a day."
            rows={attention.authorizations.map((payment) => [
              <a href={`/console/payments/${payment.id}`}>{payment.id}</a>,
              payment.attributes.merchantId,
              dollars(payment.attributes.transaction.amount),
              when(payment.attributes.authorizationExpiresAt),
            ])}
          />
        </section>
      </Layout>,
    );
  });
}
