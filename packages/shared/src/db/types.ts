import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import type postgres from 'postgres';
import type * as schema from './schema';

// The handles every module of db/ passes around, apart from the code that makes them: client.ts opens
// connections and transactions, prepared-statements.ts sends statements on them, and each needs the other's types only.

export type Schema = typeof schema;
export type Db = PostgresJsDatabase<Schema> & { $client: postgres.Sql };
/** A transaction handle; it has the same query API as Db. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type DbOrTx = Db | Tx;

/** A statement already handed to its connection: statements sent after it run after it. */
export type Sent<T> = Promise<T> & { readonly [sentBrand]: true };
declare const sentBrand: unique symbol;
