/**
 * The database: connections and transactions (client.ts), the hot path's prepared statements and the one reader
 * of raw rows (prepared-statements.ts), the handle types both use (types.ts), set-based parameters (unnest.ts),
 * group commit and group reads (batcher.ts) and admission of new payments (admission.ts), list pages read from a
 * cursor (keyset.ts), migrations.
 *
 * How a statement is written (docs/design.md, Queries):
 * - drizzle's query builder by default;
 * - written out and prepared (`send`, `sendTogether`) only on the hot paths `npm run bench` measures (`POST
 *   /payments`, `GET /payments/{id}`, `POST /auth/token`; test/payments/round-trips.test.ts counts the first two's
 *   statements; the request log's batch insert, beside every one of them) and `npm run bench:webhooks` measures (the relay's fan-out, a delivery's batched load and record),
 *   where drizzle building each statement's text on every call showed in the profile; a repository reads such a
 *   record by id that way everywhere, and its lock is the same statement `FOR UPDATE`;
 * - `db.execute(sql…)` only for what the builder cannot write, with a comment saying which;
 * - raw rows become objects through `rowMapper` (or `tableCodec(table).pick`), never by casting fields;
 * - use cases open transactions with `withTransaction`; `pipelinedTransaction` is for `POST /payments` and
 *   `POST /payouts` (`runIdempotent`, and `runInPhases`: a new payment's two commits, the processor called
 *   between them with no transaction open; their writes group-committed, `Batcher`) and the relay's fan-out alone.
 */
export * from './admission';
export * from './batcher';
export * from './client';
export * from './counts';
export * from './database-url';
export * from './keyset';
export * from './migrate';
export * from './pool-watch';
export * from './prepared-statements';
export * as schema from './schema';
export * from './unnest';
