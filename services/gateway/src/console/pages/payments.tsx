import { paymentStatuses } from '@pps/shared/states';
import type { Hono } from 'hono';
import type { GatewayDeps } from '../../deps';
import { centsOf, dollars, when } from '../components/format';
import { Layout, Notice } from '../components/layout';
import { Table } from '../components/table';
import { type ConsoleApi, consoleApi, refusalsOf } from '../console-api';
import { accountOf, type ConsoleContext, type ConsoleEnv } from '../console-env';

const PAYMENT_TYPES = ['card', 'ACH', 'refund', 'refundSplit', 'secondSplit', 'capture'] as const;

/**
 * The filters as the page's form names them (they stay in the URL, so a filtered list is a link to share), and the
 * API parameter each becomes: amounts typed in dollars become cents, dates whole UTC days.
 */
export type PaymentFilters = {
  status?: string;
  type?: string;
  merchant?: string;
  createdFrom?: string;
  createdTo?: string;
  amountFrom?: string;
  amountTo?: string;
  invoice?: string;
  last4?: string;
  email?: string;
};
const FILTER_NAMES = [
  'status',
  'type',
  'merchant',
  'createdFrom',
  'createdTo',
  'amountFrom',
  'amountTo',
  'invoice',
  'last4',
  'email',
] as const;

const filtersOf = (c: ConsoleContext): PaymentFilters =>
  Object.fromEntries(FILTER_NAMES.map((name) => [name, c.req.query(name)?.trim() || undefined]));

/** The API's query for the filters; a value the page cannot turn into one is reported, not dropped. */
export function apiQuery(filters: PaymentFilters): { query: URLSearchParams; problems: string[] } {
  const query = new URLSearchParams();
  const problems: string[] = [];
  const set = (name: string, value: string | undefined) => value !== undefined && query.set(name, value);
  set('merchantId', filters.merchant);
  set('status', filters.status);
  set('paymentType', filters.type);
  set('invoice', filters.invoice);
  set('last4', filters.last4);
  set('customerEmail', filters.email);
  for (const [field, parameter, label] of [
    ['amountFrom', 'amountGte', 'Amount from'],
    ['amountTo', 'amountLte', 'Amount to'],
  ] as const) {
    const text = filters[field];
    if (text === undefined) continue;
    const cents = centsOf(text);
    if (cents === undefined) problems.push(`${label} must be an amount in dollars, like 10 or 10.50`);
    else query.set(parameter, cents);
  }
  for (const [field, parameter, label, time] of [
    ['createdFrom', 'createdGte', 'Created from', 'T00:00:00.000Z'],
    ['createdTo', 'createdLte', 'Created to', 'T23:59:59.999Z'],
  ] as const) {
    const text = filters[field];
    if (text === undefined) continue;
    if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) problems.push(`${label} must be a date, like 2026-11-29`);
    else query.set(parameter, `${text}${time}`);
  }
  return { query, problems };
}

type Merchant = { id: string; attributes: { accountName: string } };

/** The account's merchants for the Merchant filter (the first 100; the list is by newest). */
const merchantsOf = async (api: ConsoleApi) => {
  const answer = await api.get<{ data: Merchant[] }>('/merchants?limit=100');
  return answer.status === 200 ? answer.body.data : [];
};

const Select = ({
  id,
  label,
  value,
  options,
}: {
  id: string;
  label: string;
  value?: string;
  options: [string, string][];
}) => (
  <div class="field">
    <label for={id}>{label}</label>
    <select id={id} name={id}>
      <option value="">Any</option>
      {options.map(([optionValue, text]) => (
        <option value={optionValue} selected={optionValue === value}>
          {text}
        </option>
      ))}
    </select>
  </div>
);

const Input = ({
  id,
  label,
  value,
  type = 'text',
  ...rest
}: {
  id: string;
  label: string;
  value?: string;
  type?: string;
  inputmode?: 'decimal' | 'numeric';
  pattern?: string;
  placeholder?: string;
}) => (
  <div class="field">
    <label for={id}>{label}</label>
    <input id={id} name={id} type={type} value={value ?? ''} {...rest} />
  </div>
);

/** The filter form: a GET, so it works without script and its result is a link. */
export const PaymentFiltersForm = ({ filters, merchants }: { filters: PaymentFilters; merchants: Merchant[] }) => (
  <form method="get" action="/console/payments" class="filters" aria-label="Filter payments">
    <Select
      id="status"
      label="Status"
      value={filters.status}
      options={paymentStatuses.map((status) => [status, status])}
    />
    <Select id="type" label="Type" value={filters.type} options={PAYMENT_TYPES.map((type) => [type, type])} />
    <Select
      id="merchant"
      label="Merchant"
      value={filters.merchant}
      options={merchants.map((merchant) => [merchant.id, `${merchant.attributes.accountName} (${merchant.id})`])}
    />
    <Input id="createdFrom" label="Created from" type="date" value={filters.createdFrom} />
    <Input id="createdTo" label="Created to" type="date" value={filters.createdTo} />
    <Input id="amountFrom" label="Amount from" value={filters.amountFrom} inputmode="decimal" placeholder="0.00" />
    <Input id="amountTo" label="Amount to" value={filters.amountTo} inputmode="decimal" placeholder="0.00" />
    <Input id="invoice" label="Invoice" value={filters.invoice} />
    <Input id="last4" label="Card last 4" value={filters.last4} inputmode="numeric" pattern="\d{4}" />
    <Input id="email" label="Customer email" type="email" value={filters.email} />
    <div class="actions">
      <button type="submit">Filter</button>
      <a href="/console/payments">Clear</a>
    </div>
  </form>
);

type PaymentSummary = {
  id: string;
  attributes: {
    paymentType: string;
    merchantId: string;
    status: string;
    createdAt: string;
    transaction: { amount: string; currency: string; invoice?: string };
  };
};
type PaymentList = { data: PaymentSummary[]; links: { next: string | null }; meta: { hasMore: boolean } };

/** The console URL of the next page: the filters as they are, and the API's cursor. */
const nextPageHref = (c: ConsoleContext, apiNext: string | null) => {
  if (!apiNext) return undefined;
  const cursor = new URL(apiNext).searchParams.get('startingAfter');
  if (!cursor) return undefined;
  const url = new URL(c.req.url);
  url.searchParams.set('after', cursor);
  return `${url.pathname}${url.search}`;
};

/** GET /console/payments (the list) and GET /console/payments/export.csv (the same list, every page, as CSV). */
export function registerPaymentsPage(app: Hono<ConsoleEnv>, deps: GatewayDeps) {
  app.get('/console/payments', async (c) => {
    const account = accountOf(c);
    if (!account) return c.redirect('/console/accounts', 303);
    const api = consoleApi(deps, account, c.get('requestId'));
    const filters = filtersOf(c);
    const { query, problems } = apiQuery(filters);
    const after = c.req.query('after');
    if (after) query.set('startingAfter', after);
    const [merchants, answer] = await Promise.all([
      merchantsOf(api),
      problems.length === 0 ? api.get<PaymentList>(`/payments?${query}`) : undefined,
    ]);
    const errors = answer && answer.status !== 200 ? refusalsOf(answer) : problems;
    const payments = answer?.status === 200 ? answer.body.data : [];
    const exportQuery = new URLSearchParams(c.req.url.split('?')[1] ?? '');
    exportQuery.delete('after');
    const next = answer?.status === 200 ? nextPageHref(c, answer.body.links.next) : undefined;
    return c.html(
      <Layout title="Payments" viewer={c.get('viewer')} current="/console/payments">
        <PaymentFiltersForm filters={filters} merchants={merchants} />
        {errors.map((error: string) => (
          <Notice kind="error">{error}</Notice>
        ))}
        <Table
          caption="Payments, newest first"
          headers={['Payment', 'Created', 'Type', 'Status', 'Amount', 'Invoice', 'Merchant']}
          empty={errors.length > 0 ? 'Change the filters to see payments.' : 'No payment matches these filters.'}
          rows={payments.map((payment) => [
            <a href={`/console/payments/${payment.id}`}>{payment.id}</a>,
            when(payment.attributes.createdAt),
            payment.attributes.paymentType,
            <span class={`status ${payment.attributes.status}`}>{payment.attributes.status}</span>,
            dollars(payment.attributes.transaction.amount),
            payment.attributes.transaction.invoice ?? '',
            payment.attributes.merchantId,
          ])}
        />
        <nav class="pages" aria-label="Pages">
          {after && <a href={`/console/payments?${exportQuery}`}>First page</a>}
          {next && (
            <a href={next} rel="next">
              Next page
            </a>
          )}
          {errors.length === 0 && <a href={`/console/payments/export.csv?${exportQuery}`}>Export CSV</a>}
        </nav>
      </Layout>,
    );
  });

  app.get('/console/payments/export.csv', async (c) => {
    const account = accountOf(c);
    if (!account) return c.redirect('/console/accounts', 303);
    const api = consoleApi(deps, account, c.get('requestId'));
    const { query, problems } = apiQuery(filtersOf(c));
    if (problems.length > 0) return c.text(problems.join('\n'), 400);
    query.set('limit', '100');
    const first = await api.get<PaymentList>(`/payments?${query}`);
    if (first.status !== 200) {
      return c.text(refusalsOf(first).join('\n'), 400);
    }
    return c.body(csvStream(exportLines(api, query, first.body)), 200, {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': 'attachment; filename="payments.csv"',
    });
  });
}

/**
 * The export's text, a page of the API at a time: the header, then each page's rows. A page the API refuses midway
 * throws, so the download fails where it stopped rather than ending like a whole file.
 */
async function* exportLines(api: ConsoleApi, query: URLSearchParams, first: PaymentList) {
  yield `${CSV_HEADER}\n`;
  let page = first;
  for (;;) {
    if (page.data.length > 0) yield `${page.data.map(csvRow).join('\n')}\n`;
    const last = page.data.at(-1);
    if (!page.meta.hasMore || !last) return;
    query.set('startingAfter', last.id);
    const answer = await api.get<PaymentList>(`/payments?${query}`);
    if (answer.status !== 200) throw new Error(`the export stopped after ${last.id}: GET /payments ${answer.status}`);
    page = answer.body;
  }
}

/**
 * A response body read from `lines` as the client takes it (the next page is asked for when the last is sent, so a
 * slow reader holds one page, not the list); an error in `lines` errors the body, and the connection is cut.
 */
function csvStream(lines: AsyncGenerator<string>) {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await lines.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await lines.return(undefined);
    },
  });
}

const CSV_HEADER = 'id,createdAt,paymentType,status,amount,currency,invoice,merchantId';

/** A CSV field: quoted when it must be, and never a formula a spreadsheet would run (`=`, `+`, `-`, `@` first). */
const csvField = (value: string | undefined) => {
  const text = value ?? '';
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
};

const csvRow = (payment: PaymentSummary) =>
  [
    payment.id,
    payment.attributes.createdAt,
    payment.attributes.paymentType,
    payment.attributes.status,
    payment.attributes.transaction.amount,
    payment.attributes.transaction.currency,
    payment.attributes.transaction.invoice,
    payment.attributes.merchantId,
  ]
    .map(csvField)
    .join(',');
