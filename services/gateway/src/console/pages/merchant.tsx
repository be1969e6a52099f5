import type { BalanceResource, BalanceTransactionResource, MerchantResource } from '@pps/shared/contract';
import type { Hono } from 'hono';
import type { GatewayDeps } from '../../deps';
import { firstPageHref, nextPageHref } from '../components/filter-fields';
import { dollars, when } from '../components/format';
import { Layout, Notice } from '../components/layout';
import { NotFound } from '../components/not-found';
import {
  describeSchedule,
  draftOfForm,
  draftOfSchedule,
  PayoutScheduleForm,
  type ScheduleDraft,
  type ScheduleErrors,
  scheduleBody,
  scheduleErrorsOf,
} from '../components/payout-schedule';
import { type PayoutList, PayoutsTable } from '../components/payouts-table';
import { recordLink } from '../components/record-link';
import { Fields, Table } from '../components/table';
import { type ConsoleApi, consoleApi, refusalsOf } from '../console-api';
import { accountOf, type ConsoleContext, type ConsoleEnv } from '../console-env';

type TransactionList = { data: BalanceTransactionResource[]; meta: { hasMore: boolean } };

const TRANSACTIONS_PAGE = 20;
const LATEST_PAYOUTS = 10;

/**
 * The merchant, its balance, a page of its balance transactions (newest first, from the cursor `after`) and its
 * latest payouts, each from the API; undefined when the merchant is not the account's (404 or 403 alike).
 */
async function merchantView(api: ConsoleApi, id: string, after: string | undefined) {
  const merchant = await api.get<{ data: MerchantResource }>(`/merchants/${encodeURIComponent(id)}`);
  if (merchant.status !== 200) return undefined;
  const path = `/merchants/${merchant.body.data.id}`;
  const transactionsQuery = new URLSearchParams({ limit: String(TRANSACTIONS_PAGE) });
  if (after) transactionsQuery.set('startingAfter', after);
  const payoutsQuery = new URLSearchParams({ merchantId: merchant.body.data.id, limit: String(LATEST_PAYOUTS) });
  const [balance, transactions, payouts] = await Promise.all([
    api.get<{ data: BalanceResource }>(`${path}/balance`),
    api.get<TransactionList>(`${path}/balance-transactions?${transactionsQuery}`),
    api.get<PayoutList>(`/payouts?${payoutsQuery}`),
  ]);
  return {
    merchant: merchant.body.data,
    balance: balance.status === 200 ? balance.body.data.attributes : undefined,
    transactions: transactions.status === 200 ? transactions.body.data : [],
    moreTransactions: transactions.status === 200 && transactions.body.meta.hasMore,
    payouts: payouts.status === 200 ? payouts.body.data : [],
    morePayouts: payouts.status === 200 && payouts.body.meta.hasMore,
    errors: [balance, transactions, payouts].filter((answer) => answer.status !== 200).flatMap(refusalsOf),
  };
}
type MerchantView = NonNullable<Awaited<ReturnType<typeof merchantView>>>;

type Address = { line1: string; line2?: string; city: string; state: string; zip: string; country: string };
const addressText = (address: Address | null) =>
  address &&
  [address.line1, address.line2, `${address.city}, ${address.state} ${address.zip}`, address.country]
    .filter(Boolean)
    .join(', ');

/** What the merchant is, at the head of its page. */
const MerchantSummary = ({ merchant }: { merchant: MerchantResource }) => {
  const a = merchant.attributes;
  return (
    <Fields
      fields={[
        ['Id', merchant.id],
        ['Status', <span class={`status ${a.status}`}>{a.status}</span>],
        ['Status reason', a.statusReason],
        ['Type', a.accountType],
        ['Email', a.email],
        ['Bank', `${a.bankInfo.bankName}, ${a.bankInfo.accountType} account ending ${a.bankInfo.last4}`],
        ['Created', when(a.createdAt)],
      ]}
    />
  );
};

/**
 * Who the merchant is and how to reach it: never its SSN, EIN, birth date or bank account number (the API masks
 * them; the page shows none of them but the bank account's last four, as the API gives them).
 */
const MerchantDetails = ({ merchant }: { merchant: MerchantResource }) => {
  const a = merchant.attributes;
  const owner = a.personalInfo;
  return (
    <Fields
      fields={[
        ['Owner', `${owner.firstName} ${owner.lastName}`],
        ['Owner email', owner.email],
        ['Day phone', owner.dayPhone],
        ['Evening phone', owner.eveningPhone],
        ['Address', addressText(a.personalAddress)],
        ['Business', a.businessInfo?.businessName],
        ['Business phone', a.businessInfo?.phone],
        ['Business email', a.businessInfo?.email],
        ['Website', a.businessInfo?.url],
        ['Business address', addressText(a.businessAddress)],
        ['Bank account holder', a.bankInfo.accountName],
        ['Routing number ending', a.bankInfo.routingLast4],
        ['AVS', a.AVS],
        ['Fraud screen', a.fraudScreenPolicy],
        ['Updated', when(a.updatedAt)],
      ]}
    />
  );
};

const TransactionsTable = ({ transactions }: { transactions: BalanceTransactionResource[] }) => (
  <Table
    caption="Balance transactions, newest first"
    headers={[
      'Balance transaction',
      'Created',
      'Type',
      'Amount',
      'Fee',
      'Net',
      'Status',
      'Available on',
      'Source',
      'Payout',
    ]}
    empty="No balance transaction: no money has moved for this merchant."
    rows={transactions.map((transaction) => {
      const a = transaction.attributes;
      return [
        transaction.id,
        when(a.createdAt),
        a.type,
        dollars(a.amount),
        dollars(a.fee),
        dollars(a.net),
        a.status,
        when(a.availableOn),
        recordLink(a.sourceId),
        recordLink(a.payoutId),
      ];
    })}
  />
);

type PageNotice = { kind: 'error' | 'done'; text: string };

const MerchantPage = ({
  c,
  view,
  notice,
  draft,
  errors,
}: {
  c: ConsoleContext;
  view: MerchantView;
  notice?: PageNotice;
  draft?: ScheduleDraft;
  errors?: ScheduleErrors;
}) => {
  const { merchant, balance, transactions, payouts } = view;
  const after = c.req.query('after');
  const lastTransaction = transactions.at(-1)?.id;
  return (
    <Layout title={merchant.attributes.accountName} viewer={c.get('viewer')} current="/console/merchants">
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      {view.errors.map((error) => (
        <Notice kind="error">{error}</Notice>
      ))}
      <MerchantSummary merchant={merchant} />
      <section aria-labelledby="balance">
        <h2 id="balance">Balance</h2>
        {balance ? (
          <Fields
            fields={[
              ['Pending', dollars(balance.pending)],
              ['Available', dollars(balance.available)],
              ['In transit', dollars(balance.inTransit)],
            ]}
          />
        ) : (
          <p class="empty">The balance could not be read.</p>
        )}
        <p class="help">
          Pending: captured, not yet settled. Available: settled, not yet paid out. In transit: paid out, not yet at the
          merchant's bank.
        </p>
      </section>
      <section aria-labelledby="schedule">
        <h2 id="schedule">Payout schedule</h2>
        <p>{describeSchedule(merchant.attributes.payoutSchedule)}.</p>
        <PayoutScheduleForm
          action={`/console/merchants/${merchant.id}/payout-schedule`}
          viewer={c.get('viewer')}
          draft={draft ?? draftOfSchedule(merchant.attributes.payoutSchedule)}
          errors={errors}
        />
      </section>
      <section aria-labelledby="payouts">
        <h2 id="payouts">Latest payouts</h2>
        <PayoutsTable
          caption="Latest payouts of this merchant, newest first"
          payouts={payouts}
          empty="No payout yet."
          merchant={false}
        />
        {view.morePayouts && (
          <p>
            <a href={`/console/payouts?merchant=${merchant.id}`}>All payouts of this merchant</a>
          </p>
        )}
      </section>
      <section aria-labelledby="transactions">
        <h2 id="transactions">Balance transactions</h2>
        <TransactionsTable transactions={transactions} />
        <nav class="pages" aria-label="Pages of balance transactions">
          {after && <a href={firstPageHref(c.req.url)}>First page</a>}
          {view.moreTransactions && lastTransaction && (
            <a href={nextPageHref(c.req.url, lastTransaction)} rel="next">
              Next page
            </a>
          )}
        </nav>
      </section>
      <section aria-labelledby="details">
        <h2 id="details">Contact and business</h2>
        <MerchantDetails merchant={merchant} />
      </section>
    </Layout>
  );
};

/**
 * GET /console/merchants/{id}: the merchant, its balance, balance transactions, payouts and payout schedule; POST
 * …/payout-schedule: `PUT /merchants/{id}/payout-schedule`, then the merchant with a notice, or the form again with
 * the API's errors beside their fields (422).
 */
export function registerMerchantPage(app: Hono<ConsoleEnv>, deps: GatewayDeps) {
  app.get('/console/merchants/:id', async (c) => {
    const account = accountOf(c);
    if (!account) return c.redirect('/console/accounts', 303);
    const api = consoleApi(deps, account, c.get('requestId'));
    const view = await merchantView(api, c.req.param('id'), c.req.query('after') || undefined);
    if (!view) return c.html(<NotFound viewer={c.get('viewer')} />, 404);
    const saved = c.req.query('done') === 'schedule';
    const notice: PageNotice | undefined = saved
      ? { kind: 'done', text: `Payout schedule saved: ${describeSchedule(view.merchant.attributes.payoutSchedule)}.` }
      : undefined;
    return c.html(<MerchantPage c={c} view={view} notice={notice} />);
  });

  app.post('/console/merchants/:id/payout-schedule', async (c) => {
    const account = accountOf(c);
    if (!account) return c.redirect('/console/accounts', 303);
    const api = consoleApi(deps, account, c.get('requestId'));
    const id = c.req.param('id');
    const draft = draftOfForm(c.get('form'));
    const answer = await api.put(`/merchants/${encodeURIComponent(id)}/payout-schedule`, scheduleBody(draft));
    if (answer.status === 200) return c.redirect(`/console/merchants/${encodeURIComponent(id)}?done=schedule`, 303);
    const view = await merchantView(api, id, undefined);
    if (!view) return c.html(<NotFound viewer={c.get('viewer')} />, 404);
    const errors = scheduleErrorsOf(answer);
    const notice: PageNotice = {
      kind: 'error',
      text: ['The payout schedule was not saved.', ...(errors.form ?? []), 'See the form below.'].join(' '),
    };
    return c.html(<MerchantPage c={c} view={view} notice={notice} draft={draft} errors={errors} />, 422);
  });
}
