import { TransactionRollbackError } from 'drizzle-orm';
import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import type { Sent } from './raw';
import * as schema from './schema';

export type Schema = typeof schema;
export type Db = PostgresJsDatabase<Schema> & { $client: postgres.Sql };
/** A transaction handle; it has the same query API as Db. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type DbOrTx = Db | Tx;

export type Database = { db: Db; sql: postgres.Sql; close: () => Promise<void> };

export function createDatabase(
  url: string,
  options: {
    max?: number;
    /** Sees every statement sent, with its parameters (tests count them, and explain them). */
    onQuery?: (query: string, params: readonly unknown[]) => void;
  } = {},
): Database {
  const sql = postgres(url, {
    max: options.max ?? 10,
    ...(options.onQuery
      ? { debug: (_connection: number, query: string, params: unknown[]) => options.onQuery?.(query, params) }
      : {}),
    onnotice: () => {},
    // bigint columns come back as JS numbers through drizzle's { mode: 'number' }; cents stay
    // far below 2^53 (the maximum amount is 10^8 cents).
    connection: { application_name: 'pps' },
  });
  const db = drizzle(prepared(sql), { schema });
  return { db, sql, close: () => sql.end({ timeout: 5 }) };
}

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
