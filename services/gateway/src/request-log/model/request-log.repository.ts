import {
  countedLists,
  type Db,
  type DbOrTx,
  type Keyset,
  keysetPage,
  keysetRead,
  placeIn,
  schema,
  send,
} from '@pps/shared/db';
import { and, between, count, eq, getTableName, gt, inArray, lt, or, type SQL, sql } from 'drizzle-orm';

const { requestLog, listCounts } = schema;

/** What `GET /requests` filters by: each given one narrows the list. */
export type RequestFilters = {
  /** A status code (`{ code: 404 }`) or a class (`{ class: 4 }`: 400–499). */
  status?: { code: number } | { class: number };
  method?: string;
  /** A prefix of the path with its query string. */
  path?: string;
  /** A request id: the gateway's (the row's id) or one the client sent as `x-request-id`. */
  requestId?: string;
};

/**
 * A batch goes as three parameters a row: its small columns as one text, and each body as the bytes it is, parsed
 * by nothing. Measured on a bench's rows (docs/decisions.md, The request log): the rows as one JSON document had
 * PostgreSQL read every body with its JSON parser (30–36 µs of its CPU a row against 19–20.5), and a parameter per
 * value cost the driver 1.2–1.6 µs each (its Bind writes them one by one), where the small columns as one text cost
 * PostgreSQL no more and the driver about 8 µs a row less.
 */
const SMALL_COLUMNS = [
  'id',
  'account_id',
  'method',
  'path',
  'status::smallint',
  'client_request_id',
  'idempotency_key',
  'duration_ms::int',
  'request_body_truncated::bool',
  'response_body_truncated::bool',
  'created_at::timestamptz',
] as const;
/** What parts the small columns' text: no value of them holds it (`smallColumns` replaces one a client sent). */
const SEPARATOR = '\u001f';
/** Columns that may be null: each is sent behind a `v`, and null as nothing. */
const NULLABLE = new Set(['client_request_id', 'idempotency_key']);

/**
 * The insert of `count` rows: one text per row count (a batch holds at most ROWS_PER_STATEMENT), each prepared once
 * on the writer's connection. `on conflict do nothing`: a batch whose commit went unheard (the connection lost at
 * that moment) is sent again without failing on itself.
 */
const insertTexts = new Map<number, string>();
function insertText(count: number): string {
  let text = insertTexts.get(count);
  if (text === undefined) {
    const rows = Array.from(
      { length: count },
      (_, row) => `(string_to_array($${row * 3 + 1}::text, E'\\x1f'), $${row * 3 + 2}::text, $${row * 3 + 3}::text)`,
    );
    const names = SMALL_COLUMNS.map((column) => column.split('::')[0] as string);
    const values = SMALL_COLUMNS.map((column, index) => {
      const [name, type] = column.split('::');
      const value = NULLABLE.has(name as string) ? `substr(nullif(small[${index + 1}], ''), 2)` : `small[${index + 1}]`;
      return type ? `${value}::${type}` : value;
    });
    text =
      `insert into ${getTableName(requestLog)} (${names.join(',')}, request_body, response_body) ` +
      `select ${values.join(', ')}, request_body, response_body ` +
      `from (values ${rows.join(',')}) as batch (small, request_body, response_body) on conflict (id) do nothing`;
    insertTexts.set(count, text);
  }
  return text;
}

/**
 * A row's small columns as one text. The values a client chose (the path, its request id, its idempotency key) may
 * hold the separator only when sent in-process (an HTTP request with a control character there is refused before
 * the gateway sees it); there it is kept as U+FFFD.
 */
function smallColumns(row: schema.NewRequestLogRow): string {
  const chosen = (value: string) => (value.includes(SEPARATOR) ? value.replaceAll(SEPARATOR, '\ufffd') : value);
  const nullable = (value: string | null | undefined) => (value == null ? '' : `v${chosen(value)}`);
  return [
    row.id,
    row.accountId,
    row.method,
    chosen(row.path),
    row.status,
    nullable(row.clientRequestId),
    nullable(row.idempotencyKey),
    row.durationMs,
    row.requestBodyTruncated === true,
    row.responseBodyTruncated === true,
    row.createdAt.toISOString(),
  ].join(SEPARATOR);
}

/** Writes a batch of the request log in one statement (it runs beside every request `npm run bench` measures). */
export async function insertRequestLogRows(db: Db, rows: schema.NewRequestLogRow[]): Promise<void> {
  const params: unknown[] = [];
  for (const row of rows) params.push(smallColumns(row), row.requestBody ?? null, row.responseBody ?? null);
  await send(db, insertText(rows.length), params);
}

/** The columns of a list item: everything but the bodies, which stay in their TOAST pages. */
const listed = {
  id: requestLog.id,
  method: requestLog.method,
  path: requestLog.path,
  status: requestLog.status,
  clientRequestId: requestLog.clientRequestId,
  idempotencyKey: requestLog.idempotencyKey,
  durationMs: requestLog.durationMs,
  createdAt: requestLog.createdAt,
};
export type ListedRequest = { [K in keyof typeof listed]: schema.RequestLogRow[K] };

/** A request's place in its account's list, for a cursor; undefined when the account has no such request. */
export const requestPlace = (db: DbOrTx, accountId: string, id: string) =>
  placeIn(db, requestLog, id, eq(requestLog.accountId, accountId));

/** The `C`-collated path, as the path index holds it: a prefix of it is a range of that index. */
const pathC = sql`${requestLog.path} collate "C"`;

/** The first text after every text starting with `prefix` (its last character one higher), when there is one. */
function pastPrefix(prefix: string): string | undefined {
  const last = prefix.charCodeAt(prefix.length - 1);
  if (Number.isNaN(last) || last >= 0xd7ff) return undefined;
  return `${prefix.slice(0, -1)}${String.fromCharCode(last + 1)}`;
}

function filterCondition(accountId: string, filters: RequestFilters): SQL | undefined {
  const { status, method, path, requestId } = filters;
  const upper = path === undefined ? undefined : pastPrefix(path);
  return and(
    eq(requestLog.accountId, accountId),
    status === undefined
      ? undefined
      : 'code' in status
        ? eq(requestLog.status, status.code)
        : between(requestLog.status, status.class * 100, status.class * 100 + 99),
    method === undefined ? undefined : eq(requestLog.method, method),
    // A prefix is the range [prefix, prefix with its last character one higher) of the `C`-collated path: read in
    // the index, and counted from it alone. Only a prefix with no such bound is checked row by row.
    path === undefined ? undefined : sql`${pathC} >= ${path}`,
    path === undefined
      ? undefined
      : upper === undefined
        ? sql`starts_with(${requestLog.path}, ${path})`
        : sql`${pathC} < ${upper}`,
    requestId === undefined ? undefined : or(eq(requestLog.id, requestId), eq(requestLog.clientRequestId, requestId)),
  );
}

/** A page of the account's requests, newest first (from a cursor, from its place on), without their bodies. */
export async function listRequestRows(
  db: DbOrTx,
  query: { accountId: string; filters: RequestFilters; limit: number; offset: number; keyset?: Keyset },
) {
  const read = keysetRead(requestLog, query.keyset, query.limit);
  const rows = await db
    .select(listed)
    .from(requestLog)
    .where(and(filterCondition(query.accountId, query.filters), read.where))
    .orderBy(...read.orderBy)
    .limit(read.limit)
    .offset(query.offset);
  return keysetPage(rows, query.limit, query.keyset);
}

/** The most a filtered total counts: a path prefix or a request id is not kept, so its count is bounded instead. */
export const COUNTED_AT_MOST = 10_000;

/**
 * The list's total. By method and status it is kept (`list_counts`, bucket `<method> <status>`): the account's few
 * buckets are read and summed here, whatever the number of requests. With a path prefix or a request id it is
 * counted, along the index the filter uses, up to COUNTED_AT_MOST.
 */
export async function requestTotal(db: DbOrTx, accountId: string, filters: RequestFilters): Promise<number> {
  if (filters.path !== undefined || filters.requestId !== undefined) {
    const matched = db
      .select({ one: sql`1` })
      .from(requestLog)
      .where(filterCondition(accountId, filters))
      .limit(COUNTED_AT_MOST)
      .as('matched');
    const [row] = await db.select({ total: count() }).from(matched);
    return row?.total ?? 0;
  }
  const buckets = await db
    .select({ bucket: listCounts.bucket, total: sql<string>`sum(${listCounts.count})::text` })
    .from(listCounts)
    .where(and(eq(listCounts.list, countedLists.requests), eq(listCounts.scope, accountId)))
    .groupBy(listCounts.bucket);
  let total = 0;
  for (const { bucket, total: counted } of buckets) {
    const [method, status] = bucket.split(' ') as [string, string];
    if (filters.method !== undefined && method !== filters.method) continue;
    if (filters.status !== undefined && !statusMatches(Number(status), filters.status)) continue;
    total += Number(counted);
  }
  return total;
}

const statusMatches = (status: number, filter: NonNullable<RequestFilters['status']>) =>
  'code' in filter ? status === filter.code : Math.floor(status / 100) === filter.class;

/** One of the account's requests with its bodies; undefined when the account has none by that id. */
export async function findRequestRow(
  db: DbOrTx,
  accountId: string,
  id: string,
): Promise<schema.RequestLogRow | undefined> {
  const [row] = await db
    .select()
    .from(requestLog)
    .where(and(eq(requestLog.id, id), eq(requestLog.accountId, accountId)));
  return row;
}

/**
 * Removes up to `batchSize` requests created before `before`, oldest first among ids after `after`, and returns
 * their ids. Read as a range of the primary key: a request's id is made when it begins (its time part is its
 * `created_at` or a moment before it), so every row created before `before` has an id below `before`'s bound.
 * SKIP LOCKED: two runs at once take different rows, neither waiting for the other.
 */
export async function deleteRequestsBefore(
  db: DbOrTx,
  input: { before: Date; idBound: string; after: string; batchSize: number },
): Promise<string[]> {
  const doomed = db
    .select({ id: requestLog.id })
    .from(requestLog)
    .where(
      and(gt(requestLog.id, input.after), lt(requestLog.id, input.idBound), lt(requestLog.createdAt, input.before)),
    )
    .orderBy(requestLog.id)
    .limit(input.batchSize)
    .for('update', { skipLocked: true });
  const removed = await db.delete(requestLog).where(inArray(requestLog.id, doomed)).returning({ id: requestLog.id });
  return removed.map((row) => row.id);
}
