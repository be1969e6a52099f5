import { TransactionRollbackError } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { POOL_PROBE } from './pool-watch';
import * as schema from './schema';
import type { Db, DbOrTx, Sent, Tx } from './types';

export type { Db, DbOrTx, Schema, Sent, Tx } from './types';

export type Database = {
  db: Db;
  sql: postgres.Sql;
  /**
   * Where safe requests (GET) read: a small pool of read-only sessions of its own, so a read never waits behind a
   * burst of writes queued on the main pool (docs/decisions.md, Reads on a pool of their own); `db` itself when no
   * read pool is asked for.
   */
  readDb: Db;
  close: () => Promise<void>;
};

export function createDatabase(
  url: string,
  options: {
    max?: number;
    /** Connections of the read pool (`readDb`); 0 or none: reads share the main pool. */
    readMax?: number;
    /** A connection attempt gives up after this (default 3 s); the statements waiting on it fail. */
    connectTimeoutMs?: number;
    /**
     * The server ends a statement or a transaction left idle after this (`statement_timeout`,
     * `idle_in_transaction_session_timeout` of every connection), and a lock wait after half of it (`lock_timeout`):
     * the request deadline, so nothing a request started outlives its answer for long, and no stall holds a
     * connection for ever. None: no limit.
     */
    statementTimeoutMs?: number;
    /** Sees every statement sent, with its parameters (tests count them, and explain them), but the pool's probe. */
    onQuery?: (query: string, params: readonly unknown[]) => void;
  } = {},
): Database {
  const pool = (max: number, connection: Record<string, string>) =>
    postgres(url, {
      max,
      connect_timeout: (options.connectTimeoutMs ?? 3000) / 1000,
      backoff: reconnectDelaySeconds,
      ...(options.onQuery
        ? {
            debug: (_connection: number, query: string, params: unknown[]) => {
              if (query !== POOL_PROBE) options.onQuery?.(query, params);
            },
          }
        : {}),
      onnotice: () => {},
      // bigint columns come back as JS numbers through drizzle's { mode: 'number' }; cents stay
      // far below 2^53 (the maximum amount is 10^8 cents).
      connection,
    });
  const limits: Record<string, string> = options.statementTimeoutMs
    ? {
        statement_timeout: String(options.statementTimeoutMs),
        // A row lock held elsewhere fails the waiting statement at half the deadline, a clear 503 in time.
        lock_timeout: String(Math.round(options.statementTimeoutMs / 2)),
        idle_in_transaction_session_timeout: String(options.statementTimeoutMs),
      }
    : {};
  const sql = pool(options.max ?? 10, { application_name: 'pps', ...limits });
  const db = drizzle(prepared(sql), { schema });
  if (!options.readMax) return { db, sql, readDb: db, close: () => sql.end({ timeout: 5 }) };
  // Read-only sessions: a write sent here by mistake fails loudly instead of slipping past the main pool.
  const reader = pool(options.readMax, {
    application_name: 'pps-read',
    default_transaction_read_only: 'on',
    ...limits,
  });
  return {
    db,
    sql,
    readDb: drizzle(prepared(reader), { schema }),
    close: async () => {
      await Promise.all([sql.end({ timeout: 5 }), reader.end({ timeout: 5 })]);
    },
  };
}

/**
 * How long a pool connection waits before reconnecting after a failure, by failures in a row. postgres.js's default
 * grows to 20 s, and statements queued on that connection wait with it: a database back after a 0.3 s restart kept
 * requests waiting, and answered them with errors of the restart, 11 to 19 s later. Capped at half a second, a
 * returning database is used within a second, and a down one is asked at most a few times a second per connection.
 */
export const reconnectDelaySeconds = (failures: number) =>
  Math.min(0.5, 0.025 * 2 ** failures) * (0.5 + Math.random() / 2);

/**
 * The client drizzle is given: every statement prepared. drizzle sends each one through `unsafe`, which postgres.js
 * does not prepare; an unprepared statement with parameters costs a Describe round trip before its Bind, so every
 * statement cost two. Prepared (named, cached per connection by its text), it costs one from its second run on a
 * connection. The statements are the code's own, so their number is bounded. Transactions' and reserved
 * connections' clients are wrapped the same way.
 */
function prepared<S extends Pick<postgres.Sql, 'unsafe'>>(sql: S): S {
  type Unsafe = (query: string, args?: unknown[], options?: object) => unknown;
  type Begin = (...args: unknown[]) => unknown;
  return new Proxy(sql, {
    get(target, property, receiver) {
      if (property === 'unsafe') {
        return (query: string, args?: unknown[], options?: object) =>
          (target.unsafe as Unsafe)(query, args, { ...options, prepare: true });
      }
      if (property === 'begin') {
        return (...args: unknown[]) => {
          const fn = args.pop() as (client: S) => unknown;
          return (Reflect.get(target, 'begin') as Begin)(...args, (client: S) => fn(prepared(client)));
        };
      }
      return Reflect.get(target, property, receiver);
    },
  });
}

/**
 * Runs `fn` in a transaction, or inside the caller's transaction when it already holds one,
 * so use cases compose.
 */
export async function withTransaction<T>(db: DbOrTx, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if (isTransaction(db)) return fn(db);
  return (db as Db).transaction(fn);
}

/**
 * A transaction whose BEGIN goes out with its first statement and whose COMMIT goes out with its last writes: two
 * round trips fewer than `db.transaction`, for the hot path. `fn` runs on a reserved connection and returns its
 * result with the writes it sent without waiting (`pending`: statements already on the connection, `send()`), so
 * COMMIT queues behind them. A failed write aborts the transaction, and PostgreSQL answers the COMMIT behind it
 * with a rollback; its error is thrown here. A throw from `fn` rolls back.
 */
export async function pipelinedTransaction<T>(
  db: Db,
  fn: (tx: Tx) => Promise<{ result: T; pending?: Sent<unknown>[] }>,
): Promise<T> {
  const reserved = await db.$client.reserve();
  // The handle `withTransaction` recognises as a transaction (it has `rollback`), so nested use cases join it.
  // The reserved connection shares the pool's options (drizzle's type parsers are set on them once).
  const tx = Object.assign(drizzle(prepared(Object.assign(reserved, { options: db.$client.options }))), {
    rollback: () => {
      throw new TransactionRollbackError();
    },
  }) as unknown as Tx;
  // postgres.js queries are lazy: `execute()` sends BEGIN now, ahead of the first statement.
  const begun = reserved.unsafe('begin').execute();
  // Read below; if the connection drops while `fn` runs, BEGIN's rejection must not count as unhandled meanwhile.
  begun.catch(() => {});
  let committing: Promise<unknown> | undefined;
  try {
    const outcome = await fn(tx);
    committing = reserved.unsafe('commit').execute();
    const settled = await Promise.allSettled([begun, ...(outcome.pending ?? []), committing]);
    for (const result of settled) settledValue(result);
    return outcome.result;
  } catch (error) {
    // After a failed write the COMMIT already rolled back; otherwise roll back now. Either way the connection goes
    // back to the pool outside any transaction.
    await Promise.allSettled([begun, committing ?? reserved.unsafe('rollback').execute()]);
    throw error;
  } finally {
    reserved.release();
  }
}

/**
 * The value of a statement sent together with others (`Promise.allSettled` over one transaction: postgres.js
 * pipelines them, one round trip), or its error: reading the results one by one keeps errors in the caller's order.
 */
export function settledValue<T>(result: PromiseSettledResult<T>): T {
  if (result.status === 'rejected') throw result.reason;
  return result.value;
}

export function isTransaction(db: DbOrTx): db is Tx {
  return 'rollback' in db;
}

/** Postgres error code of a unique violation; repositories turn it into a domain error. */
export const UNIQUE_VIOLATION = '23505';

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const cause = findPgError(error);
  return cause?.code === UNIQUE_VIOLATION && (constraint === undefined || cause.constraint_name === constraint);
}

/**
 * Errors that mean the database could not be reached or went away (not that a statement was wrong): the socket's
 * (refused, reset, timed out), postgres.js's (the connection closed, or could not be made in time), and PostgreSQL's
 * own while it shuts down, starts or runs out of connections (class 08, 57P01–57P03, 53300). The caller answers 503
 * `database_unavailable` and the client retries; a statement that failed so may or may not have committed, which
 * idempotency keys make safe to retry.
 */
const UNAVAILABLE_CODES = new Set([
  // The connection's own limits (statement, lock, idle-in-transaction timeouts: `statementTimeoutMs`): the database
  // did not answer in time, which a retry may find it doing.
  '57014',
  '55P03',
  '25P03',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  // read_only_sql_transaction: a write reached a server that is no longer (or not yet) the primary, as a failover
  // leaves sessions; the next one opens on the primary (`target_session_attrs=primary`).
  '25006',
]);

export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
    // Node's net errors for several addresses (localhost: ::1 and 127.0.0.1) come as an AggregateError.
    if (current instanceof AggregateError && current.errors.some(isDatabaseUnavailable)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

function findPgError(error: unknown): { code?: string; constraint_name?: string } | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    if (typeof current === 'object' && 'code' in current && typeof current.code === 'string') {
      return current as { code?: string; constraint_name?: string };
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
