import { pacificDate } from '@pps/shared/clock';
import type { Hono } from 'hono';
import { findAccount, listAccounts } from '../../admin/accounts.usecases';
import { type GatewayDeps, gatewayContext } from '../../deps';
import { dollars } from '../components/format';
import { Layout, Notice } from '../components/layout';
import { Table } from '../components/table';
import { consoleApi, refusalsOf } from '../console-api';
import type { ConsoleEnv } from '../console-env';

/** How many accounts the picker lists (the newest); an older one is reached by its id in the URL. */
const PICKER_ACCOUNTS = 100;

type Account = NonNullable<Awaited<ReturnType<typeof findAccount>>>;
type Figures = {
  count: number;
  gross: string;
  fees: string;
  refunds: string;
  net: string;
  disputed: string;
  disputeFees: string;
  reinstated: string;
};
type SettlementReport = {
  data: { attributes: { date: string; merchants: (Figures & { merchantId: string })[]; totals: Figures } };
};

/** The report's columns after the first, in the API's order. */
const FIGURES = ['count', 'gross', 'fees', 'refunds', 'net', 'disputed', 'disputeFees', 'reinstated'] as const;
const HEADERS = ['Records', 'Gross', 'Fees', 'Refunds', 'Net', 'Disputed', 'Dispute fees', 'Reinstated'];

const figureCells = (figures: Figures) =>
  FIGURES.map((name) => (name === 'count' ? String(figures.count) : dollars(figures[name])));

/** Today by the account's sandbox clock, as a Pacific settlement day: what the date field starts at. */
const todayOf = (account: Account) => pacificDate(new Date(Date.now() + account.clockOffsetSeconds * 1000));

/** The accounts to pick from: the newest, and the one asked for when it is older than those. */
async function pickable(ctx: ReturnType<typeof gatewayContext>, chosen: Account | undefined) {
  const { accounts } = await listAccounts({ ctx, input: { limit: PICKER_ACCOUNTS } });
  return chosen && !accounts.some((account) => account.id === chosen.id) ? [chosen, ...accounts] : accounts;
}

const ReportForm = ({ accounts, chosen, date }: { accounts: Account[]; chosen?: Account; date?: string }) => (
  <form method="get" action="/console/settlement-reports" class="filters" aria-label="Choose a report">
    <div class="field">
      <label for="account">Account</label>
      <select id="account" name="account" required>
        <option value="">Choose an account</option>
        {accounts.map((account) => (
          <option value={account.id} selected={account.id === chosen?.id}>
            {`${account.name} (${account.id})`}
          </option>
        ))}
      </select>
    </div>
    <div class="field">
      <label for="date">Settlement day</label>
      <input id="date" name="date" type="date" required value={date ?? ''} />
    </div>
    <div class="actions">
      <button type="submit">Show report</button>
    </div>
  </form>
);

const ReportTable = ({ account, report }: { account: Account; report: SettlementReport }) => {
  const { date, merchants, totals } = report.data.attributes;
  return (
    <Table
      caption={`Settlement of ${account.name} on ${date}, per merchant, then the total`}
      headers={['Merchant', ...HEADERS]}
      empty="Nothing settled."
      rows={[
        ...merchants.map((merchant) => [merchant.merchantId, ...figureCells(merchant)]),
        ['Total', ...figureCells(totals)],
      ]}
    />
  );
};

/**
 * GET /console/settlement-reports, the operator's: pick an account and a settlement day, and read that account's
 * settlement report (GET /reports/settlement) as the account would: the console calls the API as that account, with
 * its id and sandbox clock, the operator acting for it. The form is a GET, so a report is a link.
 */
export function registerSettlementReportsPages(app: Hono<ConsoleEnv>, deps: GatewayDeps) {
  const ctx = gatewayContext(deps);
  app.get('/console/settlement-reports', async (c) => {
    const viewer = c.get('viewer');
    if (viewer.kind !== 'operator') return c.redirect('/console', 303);
    const accountId = c.req.query('account') || undefined;
    const chosen = accountId ? await findAccount({ ctx, input: { id: accountId } }) : undefined;
    const date = c.req.query('date') || (chosen ? todayOf(chosen) : undefined);
    const asked = chosen && c.req.query('date');
    const api = chosen && consoleApi(deps, chosen, c.get('requestId'));
    const [accounts, answer] = await Promise.all([
      pickable(ctx, chosen),
      api && asked
        ? api.get<SettlementReport>(`/reports/settlement?${new URLSearchParams({ date: asked })}`)
        : undefined,
    ]);
    const errors = [
      ...(accountId && !chosen ? [`There is no account ${accountId}.`] : []),
      ...(answer ? refusalsOf(answer) : []),
    ];
    return c.html(
      <Layout title="Settlement reports" viewer={viewer} current="/console/settlement-reports">
        <p>
          What settled for each merchant of an account on one settlement day (the Pacific date the money settled, by the
          account's clock): the account's own GET /reports/settlement, read for it.
        </p>
        <ReportForm accounts={accounts} chosen={chosen} date={date} />
        {errors.map((error) => (
          <Notice kind="error">{error}</Notice>
        ))}
        {chosen && answer?.status === 200 && <ReportTable account={chosen} report={answer.body} />}
        <p>
          The settlement and payout runs themselves, with every job's retries and failures, are on the{' '}
          <a href="/admin/queues">queue board</a>. It is not part of the console's session: the browser asks for the
          admin token there (any user name, the token as the password).
        </p>
      </Layout>,
    );
  });
}
