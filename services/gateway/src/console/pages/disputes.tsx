import type { Hono } from 'hono';
import type { GatewayDeps } from '../../deps';
import { dollars, when } from '../components/format';
import { Layout, Notice } from '../components/layout';
import { Table } from '../components/table';
import { type ConsoleApi, consoleApi, refusalsOf } from '../console-api';
import { accountOf, type ConsoleEnv } from '../console-env';

export type DisputeSummary = {
  id: string;
  attributes: {
    paymentId: string;
    status: string;
    reason: string;
    phase: string;
    amount: string;
    dueBy: string;
    createdAt: string;
    evidenceDetails: { pastDue: boolean };
  };
};
type DisputeList = { data: DisputeSummary[]; links: { next: string | null }; meta: { hasMore: boolean } };

/** Open disputes are few (each closes 7 business days after it opened): every one is read, up to this many pages. */
const NEEDS_RESPONSE_PAGES = 10;

/**
 * Every dispute that needs a response, soonest due first. The API lists newest first only, so all of them are read
 * (the soonest due are the oldest, on the last page) and ordered here.
 */
export async function needingResponse(api: ConsoleApi): Promise<{ disputes: DisputeSummary[]; errors: string[] }> {
  const disputes: DisputeSummary[] = [];
  let after: string | undefined;
  for (let page = 0; page < NEEDS_RESPONSE_PAGES; page++) {
    const query = new URLSearchParams({ status: 'needs_response', limit: '100' });
    if (after) query.set('startingAfter', after);
    const answer = await api.get<DisputeList>(`/disputes?${query}`);
    if (answer.status !== 200) return { disputes, errors: refusalsOf(answer) };
    disputes.push(...answer.body.data);
    after = answer.body.data.at(-1)?.id;
    if (!answer.body.meta.hasMore || !after) break;
  }
  disputes.sort((a, b) => a.attributes.dueBy.localeCompare(b.attributes.dueBy));
  return { disputes, errors: [] };
}

/** A page of the other disputes (under review, won, lost), newest first, from the API's cursor `after`. */
async function theOthers(api: ConsoleApi, after: string | undefined) {
  const query = new URLSearchParams({ limit: '50' });
  if (after) query.set('startingAfter', after);
  const answer = await api.get<DisputeList>(`/disputes?${query}`);
  if (answer.status !== 200) return { disputes: [], next: undefined, errors: refusalsOf(answer) };
  const last = answer.body.data.at(-1)?.id;
  return {
    disputes: answer.body.data.filter((dispute) => dispute.attributes.status !== 'needs_response'),
    next: answer.body.meta.hasMore && last ? last : undefined,
    errors: [],
  };
}

const disputeLink = (dispute: DisputeSummary) => <a href={`/console/disputes/${dispute.id}`}>{dispute.id}</a>;
const paymentLink = (id: string) => <a href={`/console/payments/${id}`}>{id}</a>;
const status = (value: string) => <span class={`status ${value}`}>{value}</span>;

const DisputesTables = ({
  open,
  others,
  after,
}: {
  open: DisputeSummary[];
  others: { disputes: DisputeSummary[]; next?: string };
  after?: string;
}) => (
  <>
    <section aria-labelledby="needs-response">
      <h2 id="needs-response">Needing a response</h2>
      <Table
        caption="Disputes needing a response, soonest due first"
        headers={['Dispute', 'Respond by', 'Reason', 'Amount', 'Phase', 'Payment', 'Opened']}
        empty="No dispute needs a response."
        rows={open.map((dispute) => [
          disputeLink(dispute),
          dispute.attributes.evidenceDetails.pastDue
            ? `${when(dispute.attributes.dueBy)} (past due)`
            : when(dispute.attributes.dueBy),
          dispute.attributes.reason,
          dollars(dispute.attributes.amount),
          dispute.attributes.phase,
          paymentLink(dispute.attributes.paymentId),
          when(dispute.attributes.createdAt),
        ])}
      />
    </section>
    <section aria-labelledby="other-disputes">
      <h2 id="other-disputes">Other disputes</h2>
      <Table
        caption="Disputes under review or closed, newest first"
        headers={['Dispute', 'Opened', 'Status', 'Reason', 'Amount', 'Phase', 'Payment']}
        empty={after ? 'No more disputes.' : 'No other dispute.'}
        rows={others.disputes.map((dispute) => [
          disputeLink(dispute),
          when(dispute.attributes.createdAt),
          status(dispute.attributes.status),
          dispute.attributes.reason,
          dollars(dispute.attributes.amount),
          dispute.attributes.phase,
          paymentLink(dispute.attributes.paymentId),
        ])}
      />
      <nav class="pages" aria-label="Pages of other disputes">
        {after && <a href="/console/disputes">First page</a>}
        {others.next && (
          <a href={`/console/disputes?after=${encodeURIComponent(others.next)}`} rel="next">
            Next page
          </a>
        )}
      </nav>
    </section>
  </>
);

/** GET /console/disputes: those needing a response first, by due date; then the rest, newest first. */
export function registerDisputesPage(app: Hono<ConsoleEnv>, deps: GatewayDeps) {
  app.get('/console/disputes', async (c) => {
    const account = accountOf(c);
    if (!account) return c.redirect('/console/accounts', 303);
    const api = consoleApi(deps, account, c.get('requestId'));
    const after = c.req.query('after') || undefined;
    const [open, others] = await Promise.all([needingResponse(api), theOthers(api, after)]);
    return c.html(
      <Layout title="Disputes" viewer={c.get('viewer')} current="/console/disputes">
        {[...open.errors, ...others.errors].map((error) => (
          <Notice kind="error">{error}</Notice>
        ))}
        <DisputesTables open={open.disputes} others={others} after={after} />
      </Layout>,
    );
  });
}
