import type { MerchantResource, PayoutReconciliation, PayoutResource } from '@pps/shared/contract';
import type { Hono } from 'hono';
import type { Child } from 'hono/jsx';
import type { GatewayDeps } from '../../deps';
import { dollars, when } from '../components/format';
import { Layout, Notice } from '../components/layout';
import { NotFound } from '../components/not-found';
import { PayoutStatus } from '../components/payouts-table';
import { recordLink } from '../components/record-link';
import { Fields, Table } from '../components/table';
import { type ConsoleApi, consoleApi, refusalsOf } from '../console-api';
import { accountOf, type ConsoleContext, type ConsoleEnv } from '../console-env';

type Reconciliation = PayoutReconciliation['attributes'];
type Item = Reconciliation['items'][number];

/**
 * How many of a reconciliation's rows the page shows: a daily payout of a busy merchant carries a day of payments,
 * so the page stays the same size however many there are, and the whole list is the CSV download.
 */
const RECONCILIATION_ROWS = 200;

const METHODS: Record<PayoutResource['attributes']['method'], string> = {
  automatic: 'automatic (the payout schedule)',
  manual: 'manual (POST /payouts)',
  negative_balance_debit: 'debit of a negative balance',
};

/**
 * The payout, its reconciliation and its merchant's name, from the API; undefined when the payout is not the
 * account's (404 or 403 alike).
 */
async function payoutView(api: ConsoleApi, id: string) {
  const payout = await api.get<{ data: PayoutResource }>(`/payouts/${encodeURIComponent(id)}`);
  if (payout.status !== 200) return undefined;
  const { merchantId } = payout.body.data.attributes;
  const [reconciliation, merchant] = await Promise.all([
    api.get<{ data: PayoutReconciliation }>(`/payouts/${payout.body.data.id}/reconciliation`),
    api.get<{ data: MerchantResource }>(`/merchants/${encodeURIComponent(merchantId)}`),
  ]);
  return {
    payout: payout.body.data,
    reconciliation: reconciliation.status === 200 ? reconciliation.body.data.attributes : undefined,
    merchantName: merchant.status === 200 ? merchant.body.data.attributes.accountName : undefined,
    errors: refusalsOf(reconciliation),
  };
}

/** A row's first cell: its balance transaction, or what a forward row is (it has none). */
const itemName = (item: Item) =>
  item.type === 'brought_forward'
    ? 'Brought forward from the previous payout'
    : item.type === 'carried_forward'
      ? 'Carried forward to the next payout'
      : (item.balanceTransactionId ?? '—');

const ReconciliationTable = ({ payoutId, reconciliation }: { payoutId: string; reconciliation: Reconciliation }) => {
  const { items, totals } = reconciliation;
  const shown = items.slice(0, RECONCILIATION_ROWS);
  const rows: Child[][] = shown.map((item) => [
    itemName(item),
    item.type,
    recordLink(item.sourceId),
    dollars(item.amount),
    dollars(item.fee),
    dollars(item.net),
    when(item.availableOn),
    when(item.createdAt),
  ]);
  if (items.length > 0) {
    rows.push([
      `Total of ${totals.count} item${totals.count === 1 ? '' : 's'}`,
      '',
      '',
      <strong>{dollars(totals.amount)}</strong>,
      <strong>{dollars(totals.fee)}</strong>,
      <strong>{dollars(totals.net)}</strong>,
      '',
      '',
    ]);
  }
  return (
    <>
      <p class="help">
        {`Oldest first: what the previous payout left, the balance transactions this payout carried, and what it left for the next one. Their net adds up to the payout's amount, ${dollars(reconciliation.amount)}.`}
      </p>
      {items.length > shown.length && (
        <p>{`The first ${shown.length} of ${items.length} items; the totals are of all of them.`}</p>
      )}
      <Table
        caption={`Reconciliation of ${payoutId}, oldest first, then the totals`}
        headers={['Balance transaction', 'Type', 'Source', 'Amount', 'Fee', 'Net', 'Available on', 'Created']}
        empty="This payout carried no balance transaction."
        rows={rows}
      />
      <p>
        <a href={`/console/payouts/${payoutId}/reconciliation.csv`}>Download the reconciliation (CSV)</a>
      </p>
    </>
  );
};

const PayoutPage = ({ c, view }: { c: ConsoleContext; view: NonNullable<Awaited<ReturnType<typeof payoutView>>> }) => {
  const { payout, reconciliation } = view;
  const a = payout.attributes;
  const failure = a.failureCode ? `${a.failureCode}${a.failureMessage ? `: ${a.failureMessage}` : ''}` : undefined;
  return (
    <Layout title={`Payout ${payout.id}`} viewer={c.get('viewer')} current="/console/payouts">
      {view.errors.map((error) => (
        <Notice kind="error">{error}</Notice>
      ))}
      <Fields
        fields={[
          ['Amount', dollars(a.amount)],
          ['Status', <PayoutStatus status={a.status} />],
          ['Failure', failure],
          [
            'Merchant',
            <>
              <a href={`/console/merchants/${a.merchantId}`}>{view.merchantName ?? a.merchantId}</a>
              {view.merchantName && ` (${a.merchantId})`}
            </>,
          ],
          ['Method', METHODS[a.method] ?? a.method],
          ['Arrival date', a.arrivalDate],
          ['Bank account', `ending ${a.bank.last4}, routing number ending ${a.bank.routingLast4}`],
          ['Trace number', a.traceNumber ?? 'not filed yet'],
          ['Created', when(a.createdAt)],
          ['Paid', a.paidAt && when(a.paidAt)],
          ['Failed', a.failedAt && when(a.failedAt)],
        ]}
      />
      <section aria-labelledby="reconciliation">
        <h2 id="reconciliation">Reconciliation</h2>
        {reconciliation ? (
          <ReconciliationTable payoutId={payout.id} reconciliation={reconciliation} />
        ) : (
          <p class="empty">The reconciliation could not be read.</p>
        )}
      </section>
    </Layout>
  );
};

/**
 * GET /console/payouts/{id}: the payout, its trace number and its reconciliation; GET …/reconciliation.csv: the
 * whole reconciliation as the API writes it in CSV (`Accept: text/csv`), a download.
 */
export function registerPayoutPage(app: Hono<ConsoleEnv>, deps: GatewayDeps) {
  app.get('/console/payouts/:id', async (c) => {
    const account = accountOf(c);
    if (!account) return c.redirect('/console/accounts', 303);
    const view = await payoutView(consoleApi(deps, account, c.get('requestId')), c.req.param('id'));
    if (!view) return c.html(<NotFound viewer={c.get('viewer')} />, 404);
    return c.html(<PayoutPage c={c} view={view} />);
  });

  app.get('/console/payouts/:id/reconciliation.csv', async (c) => {
    const account = accountOf(c);
    if (!account) return c.redirect('/console/accounts', 303);
    const api = consoleApi(deps, account, c.get('requestId'));
    const csv = await api.csv(`/payouts/${encodeURIComponent(c.req.param('id'))}/reconciliation`);
    if (csv.status !== 200 || !csv.type?.startsWith('text/csv')) {
      return c.html(<NotFound viewer={c.get('viewer')} />, 404);
    }
    // The API answered it: the id is one of the account's payouts (a payout id's letters only), safe in a header.
    const id = c.req.param('id');
    return c.body(csv.text, 200, {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="${id}-reconciliation.csv"`,
    });
  });
}
