import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, smallint, text } from 'drizzle-orm/pg-core';
import { ts } from './columns';

/**
 * The request log (docs/design.md, The request log): one row per API request of an account, written by the gateway
 * in batches after the answer went out, kept 30 days. Bodies are stored redacted and cut (never as sent), as JSON
 * text: the redacted body of a request is not parsed again by PostgreSQL on the way in.
 *
 * Indexed for what `GET /requests` asks, and for nothing else (every index is paid on each of many inserts): the
 * account's requests newest first; the account's requests by path (a prefix is a range of the `C`-collated path);
 * the request ids a client chose (a request id the gateway made is the row's own id, found by the primary key).
 * Retention reads the primary key as a range of time (ids sort by creation).
 */
export const requestLog = pgTable(
  'request_log',
  {
    /** `req_…`: the `x-request-id` the answer carried when the gateway made it, else a new one. */
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    method: text('method').notNull(),
    /** The path with its query string, as the client sent it. */
    path: text('path').notNull(),
    status: smallint('status').notNull(),
    /** The client's own `x-request-id`, when it sent one (the answer carried it back); else the id is the request id. */
    clientRequestId: text('client_request_id'),
    /** The `Idempotency-Key` header, or `data.requestId` of a `POST /payments` or `POST /payouts` body. */
    idempotencyKey: text('idempotency_key'),
    durationMs: integer('duration_ms').notNull(),
    /** The body as JSON text with every secret redacted, cut at 16,384 characters; null: none, or not JSON. */
    requestBody: text('request_body'),
    requestBodyTruncated: boolean('request_body_truncated').notNull().default(false),
    responseBody: text('response_body'),
    responseBodyTruncated: boolean('response_body_truncated').notNull().default(false),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    index('request_log_account_created_idx').on(t.accountId, t.createdAt, t.id),
    index('request_log_account_path_idx').on(t.accountId, sql`${t.path} collate "C"`),
    index('request_log_client_request_idx')
      .on(t.accountId, t.clientRequestId)
      .where(sql`${t.clientRequestId} is not null`),
  ],
);

export type RequestLogRow = typeof requestLog.$inferSelect;
export type NewRequestLogRow = typeof requestLog.$inferInsert;
