import { listRequestsQuerySchema, requestMethods } from '@pps/shared/contract';
import { ApiError } from '@pps/shared/http';
import type { Hono } from 'hono';
import type { GatewayDeps } from '../../deps';
import { requestDocument, requestSummary } from '../../request-log/api/requests.presenter';
import { getRequest, type ListRequestsInput, listRequests } from '../../request-log/api/requests.usecases';
import { CodeBlock, prettyJson } from '../components/code';
import { FilterInput, FilterSelect, firstPageHref, nextPageHref } from '../components/filter-fields';
import { when } from '../components/format';
import { Layout, Notice } from '../components/layout';
import { NotFound } from '../components/not-found';
import { Fields, Table } from '../components/table';
import { accountOf, type ConsoleContext, type ConsoleEnv } from '../console-env';

/** How many requests a page of the list shows. */
const PAGE_SIZE = '50';

/** The filters as the page's form names them: the API's own (`GET /requests?status=&method=&path=&requestId=`). */
type RequestFilters = { status?: string; method?: string; path?: string; requestId?: string };
const FILTER_NAMES = ['status', 'method', 'path', 'requestId'] as const;

const filtersOf = (c: ConsoleContext): RequestFilters =>
  Object.fromEntries(FILTER_NAMES.map((name) => [name, c.req.query(name)?.trim() || undefined]));

/**
 * The list's input as `GET /requests` reads it, checked by the API's own query schema (so the page takes exactly the
 * filters the API does, and says what is wrong the way it does); the problems when it is not one.
 */
function listInput(
  filters: RequestFilters,
  after: string | undefined,
): { input: ListRequestsInput; problems: [] } | { input: undefined; problems: string[] } {
  const parsed = listRequestsQuerySchema.safeParse({ ...filters, limit: PAGE_SIZE, startingAfter: after });
  if (parsed.success) return { input: parsed.data, problems: [] };
  return { input: undefined, problems: parsed.error.issues.map((issue) => issue.message) };
}

/**
 * A page of the account's requests, as `GET /requests` answers it: the same use case, the same "more" rule (the
 * cursor's look-ahead, or the kept total on the first page). A cursor that is no request of the list is a problem.
 */
async function requestsPage(deps: GatewayDeps, accountId: string, input: ListRequestsInput) {
  try {
    const { rows, total, travel } = await listRequests({ ctx: { db: deps.db, account: { id: accountId } }, input });
    const hasMore = travel ? travel.hasMore : input.offset + rows.length < total;
    return { rows, hasMore, problems: [] };
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 400) throw error;
    return { rows: [], hasMore: false, problems: [error.detail] };
  }
}

/** The filter form: a GET, so it works without script and a filtered list is a link to share. */
const RequestFiltersForm = ({ filters }: { filters: RequestFilters }) => (
  <form method="get" action="/console/requests" class="filters" aria-label="Filter requests">
    <FilterInput id="status" label="Status" value={filters.status} placeholder="400 or 4xx" />
    <FilterSelect id="method" label="Method" value={filters.method} options={requestMethods} />
    <FilterInput id="path" label="Path" value={filters.path} placeholder="/payments" help="Paths starting with this" />
    <FilterInput id="requestId" label="Request id" value={filters.requestId} placeholder="req_…" />
    <div class="actions">
      <button type="submit">Filter</button>
      <a href="/console/requests">Clear</a>
    </div>
  </form>
);

const status = (code: number) => <span class={`status ${code >= 400 ? 'failed' : 'completed'}`}>{String(code)}</span>;

/** A body of the log (redacted when it was stored), readable; a note when it was cut, a sentence when there was none. */
const Body = ({ label, text, truncated }: { label: string; text: string | null; truncated: boolean }) =>
  text === null ? (
    <p class="empty">No body, or none that was JSON.</p>
  ) : (
    <>
      {truncated && <p class="help">Cut at 16,384 characters, as the log keeps it.</p>}
      <CodeBlock label={label} text={truncated ? text : prettyJson(text)} />
    </>
  );

/**
 * GET /console/requests: the account's request log, newest first, by cursor pages, filtered by status, method, path
 * and request id; GET /console/requests/{id}: one request with its bodies. The log is the gateway's own, so the
 * pages call the use cases `GET /requests` and `GET /requests/{id}` call, scoped to the signed-in account: another
 * account's request is the 404 page. The bodies were redacted when they were stored (card numbers, codes, keys).
 */
export function registerRequestsPages(app: Hono<ConsoleEnv>, deps: GatewayDeps) {
  const base = deps.config.PUBLIC_BASE_URL;

  app.get('/console/requests', async (c) => {
    const account = accountOf(c);
    if (!account) return c.redirect('/console/accounts', 303);
    const filters = filtersOf(c);
    const after = c.req.query('after') || undefined;
    const { input, problems: invalid } = listInput(filters, after);
    const page = input ? await requestsPage(deps, account.id, input) : { rows: [], hasMore: false, problems: invalid };
    const requests = page.rows.map((row) => requestSummary(base, row));
    const last = requests.at(-1)?.id;
    return c.html(
      <Layout title="Request log" viewer={c.get('viewer')} current="/console/requests">
        <p>Every API request of this account in the last 30 days, with its bodies (secrets redacted).</p>
        <RequestFiltersForm filters={filters} />
        {page.problems.map((problem) => (
          <Notice kind="error">{problem}</Notice>
        ))}
        <Table
          caption="Requests, newest first"
          headers={['Request', 'Method', 'Path', 'Status', 'x-request-id', 'Idempotency-Key', 'Duration (ms)', 'Time']}
          empty={page.problems.length > 0 ? 'Change the filters to see requests.' : 'No request matches these filters.'}
          rows={requests.map(({ id, attributes: a }) => [
            <a href={`/console/requests/${id}`}>{id}</a>,
            a.method,
            a.path,
            status(a.status),
            a.requestId,
            a.idempotencyKey ?? '',
            String(a.durationMs),
            when(a.createdAt),
          ])}
        />
        <nav class="pages" aria-label="Pages">
          {after && <a href={firstPageHref(c.req.url)}>First page</a>}
          {page.hasMore && last && (
            <a href={nextPageHref(c.req.url, last)} rel="next">
              Next page
            </a>
          )}
        </nav>
      </Layout>,
    );
  });

  app.get('/console/requests/:id', async (c) => {
    const account = accountOf(c);
    if (!account) return c.redirect('/console/accounts', 303);
    const row = await getRequest({
      ctx: { db: deps.db, account: { id: account.id } },
      input: { id: c.req.param('id') },
    }).catch((error) => {
      if (error instanceof ApiError && error.status === 404) return undefined;
      throw error;
    });
    if (!row) return c.html(<NotFound viewer={c.get('viewer')} />, 404);
    const { id, attributes: a } = requestDocument(base, row).data;
    return c.html(
      <Layout title={`Request ${id}`} viewer={c.get('viewer')} current="/console/requests">
        <Fields
          fields={[
            ['Method', a.method],
            ['Path', a.path],
            ['Status', status(a.status)],
            ['x-request-id', a.requestId],
            ['Idempotency-Key', a.idempotencyKey],
            ['Duration', `${a.durationMs} ms`],
            ['Time', when(a.createdAt)],
          ]}
        />
        <section aria-labelledby="request-body">
          <h2 id="request-body">Request body</h2>
          <Body label="Request body (JSON)" text={a.requestBody} truncated={a.requestBodyTruncated} />
        </section>
        <section aria-labelledby="response-body">
          <h2 id="response-body">Response body</h2>
          <Body label="Response body (JSON)" text={a.responseBody} truncated={a.responseBodyTruncated} />
        </section>
      </Layout>,
    );
  });
}
