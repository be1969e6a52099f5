import {
  Column,
  type GetColumnData,
  getTableColumns,
  getTableName,
  type InferInsertModel,
  type InferSelectModel,
  is,
} from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type postgres from 'postgres';
import type { z } from 'zod';
import type { DbOrTx, Sent } from './types';

/**
 * The hot path's statements: SQL written once, sent straight to postgres.js as prepared statements. drizzle builds
 * every statement's text afresh on each call (a fifth of a payment's CPU: docs/decisions.md, Performance of the
 * payment path); these skip that, and go out the moment they are called, so statements sent one after another
 * share a round trip, in the order called. Rows are read with `rowMapper` and written with `tableCodec`, both on
 * drizzle's own column mappings, so they are the values drizzle would give. Which statements may be written this
 * way is in index.ts.
 */

type Row = Record<string, unknown>;

/** The postgres.js client under a drizzle handle: the pool, a transaction's connection or a reserved one. */
function clientOf(db: DbOrTx): postgres.Sql {
  // drizzle keeps it on its session (`PostgresJsSession.client`), for the database and its transactions alike.
  const client = (db as unknown as { session?: { client?: postgres.Sql } }).session?.client;
  if (!client) throw new Error('not a drizzle postgres-js handle');
  return client;
}

/** Sends `text` with `params` now (prepared on its connection; one round trip from its second use there). */
export function send(db: DbOrTx, text: string, params: unknown[]): Sent<Row[]> {
  // Refused here, before it is queued: postgres.js would fail it without the server seeing it, and a COMMIT
  // pipelined behind it would then commit the transaction without this write.
  const missing = params.indexOf(undefined);
  if (missing >= 0) throw new Error(`parameter $${missing + 1} is undefined in: ${text.slice(0, 60)}`);
  const query = clientOf(db).unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare: true });
  query.execute();
  // Its awaiter sees a failure; a statement left unawaited when its transaction is abandoned must not crash the
  // process with an unhandled rejection.
  query.catch(() => {});
  return query as unknown as Sent<Row[]>;
}

/** One write (an `insert`, `update` or `delete`, parameters from $1) to go out with others as one statement. */
export type Part = { text: string; params: unknown[] };

const WRITE = /^\s*(insert|update|delete)\s/i;
const combined = new Map<string, string>();

/**
 * Sends `parts` as one statement, each a data-modifying CTE of it (`with w1 as (…), w2 as (…) select`): one
 * message, one execution, one reply, in place of one each. The parts run on one snapshot and don't see each
 * other's rows, in no set order; constraints are checked at the statement's end, so a row may reference one
 * inserted beside it. The text is the same for the same parts, so it is prepared once per connection.
 */
export function sendTogether(db: DbOrTx, parts: Part[]): Sent<unknown> {
  const key = parts.map((part) => part.text).join('\u0000');
  let text = combined.get(key);
  if (text === undefined) {
    let offset = 0;
    const ctes = parts.map((part, index) => {
      if (!WRITE.test(part.text)) throw new Error(`not a single write: ${part.text.slice(0, 60)}`);
      const highest = Math.max(0, ...[...part.text.matchAll(/\$(\d+)/g)].map((match) => Number(match[1])));
      if (highest !== part.params.length) throw new Error(`$${highest} with ${part.params.length} parameters`);
      const renumbered = part.text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
      offset += part.params.length;
      return `w${index + 1} as (${renumbered})`;
    });
    text = `with ${ctes.join(',\n')}\nselect 1`;
    combined.set(key, text);
  }
  return send(
    db,
    text,
    parts.flatMap((part) => part.params),
  );
}

/** `sent` with its rows mapped (the mapped promise counts as sent: its statement is). */
export const mapSent = <T, U>(sent: Sent<T>, map: (rows: T) => U): Sent<U> => sent.then(map) as Sent<U>;

/**
 * How one field of a raw row is read: a drizzle column (the row's property of the column's name, converted as
 * drizzle converts it), or a zod schema for a computed value (the property named as the field in snake_case).
 */
export type RowField = Column | z.ZodType;
type FieldValue<F> = F extends Column ? GetColumnData<F> : F extends z.ZodType ? z.output<F> : never;
/** The object a `rowMapper` of these fields makes. */
export type MappedRow<F extends Record<string, RowField>> = { [K in keyof F]: FieldValue<F[K]> };

const snakeCase = (key: string) => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * The one way a raw row (`send`'s) becomes a typed object with camelCase fields: each field is read by its
 * column's mapping or checked by its schema, so no caller casts a value it has not looked at. A field the statement
 * did not select is left out, as a table's `read` always has; write the select list next to its mapper.
 */
export function rowMapper<const F extends Record<string, RowField>>(fields: F): (raw: Row) => MappedRow<F> {
  const readers = Object.entries(fields).map(([key, field]) => {
    if (is(field, Column)) {
      const column: Column = field;
      return {
        key,
        name: column.name,
        decode: (value: unknown) => (value === null ? null : column.mapFromDriverValue(value)),
      };
    }
    const schema: z.ZodType = field;
    return { key, name: snakeCase(key), decode: (value: unknown) => schema.parse(value) };
  });
  return (raw) => {
    const row: Row = {};
    for (const { key, name, decode } of readers) {
      if (name in raw) row[key] = decode(raw[name]);
    }
    return row as MappedRow<F>;
  };
}

type Model<T extends PgTable> = InferSelectModel<T>;
type Key<T extends PgTable> = keyof Model<T> & string;

type Codec<T extends PgTable> = {
  /** `insert into <table> (<every column>) values ($1, …)`. */
  insertText: string;
  /** Every column's driver value, in `insertText`'s order; a column not given is null. */
  params: (values: InferInsertModel<T>) => unknown[];
  /**
   * `insert into <table> (<every column>) select … from unnest($1::text[], …)`: any number of rows in one statement
   * with one parameter per column (group commit), each column cast back to its type.
   */
  insertManyText: string;
  /** One text array per column, in `insertManyText`'s order: the rows' driver values as text, null for null. */
  manyParams: (rows: InferInsertModel<T>[]) => (string | null)[][];
  /** The row as the table returns it: the values given, null for the rest. */
  row: (values: InferInsertModel<T>) => Model<T>;
  /** A row of this table read by column name: the `rowMapper` of every column (columns not read are left out). */
  read: (raw: Row) => Model<T>;
  /**
   * These fields (all of them by default) as a `select` list (`columns`, quoted) and the `rowMapper` of exactly
   * those columns: the statement and its reading written from one list.
   */
  pick: <K extends Key<T> = Key<T>>(keys?: readonly K[]) => { columns: string; read: (raw: Row) => Pick<Model<T>, K> };
};

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * A table's statement text and value mappings, built once. Inserts name every column, so a column with a database
 * default must be given (the row the caller gets is exactly what was written); a missing NOT NULL column throws.
 */
export function tableCodec<T extends PgTable>(table: T): Codec<T> {
  const columns = Object.entries(getTableColumns(table)) as [string, Column][];
  const tableName = getTableName(table);
  const given = (values: Row, key: string, column: Column) => {
    const value = values[key];
    if (value !== undefined && value !== null) return value;
    if (column.notNull) throw new Error(`${tableName}.${column.name} is NOT NULL and was not given`);
    return null;
  };
  const pick = <K extends Key<T>>(keys?: readonly K[]) => {
    const picked = columns.filter(([key]) => !keys || (keys as readonly string[]).includes(key));
    return {
      columns: picked.map(([, column]) => quote(column.name)).join(', '),
      read: rowMapper(Object.fromEntries(picked)) as (raw: Row) => Pick<Model<T>, K>,
    };
  };
  const driverValue = (values: Row, key: string, column: Column) => {
    const value = given(values, key, column);
    return value === null ? null : column.mapToDriverValue(value);
  };
  const asText = (value: unknown) =>
    value === null ? null : value instanceof Date ? value.toISOString() : String(value);
  const names = columns.map(([, column]) => quote(column.name)).join(', ');
  return {
    insertManyText: `insert into ${quote(tableName)} (${names}) select ${columns
      .map(([, column], index) => `c${index + 1}::${column.getSQLType()}`)
      .join(', ')} from unnest(${columns.map((_, index) => `$${index + 1}::text[]`).join(', ')}) as r(${columns
      .map((_, index) => `c${index + 1}`)
      .join(', ')})`,
    manyParams: (rows) =>
      columns.map(([key, column]) => rows.map((values) => asText(driverValue(values as Row, key, column)))),
    insertText: `insert into ${quote(tableName)} (${names}) values (${columns.map((_, index) => `$${index + 1}`).join(', ')})`,
    params: (values) => columns.map(([key, column]) => driverValue(values as Row, key, column)),
    row: (values) => {
      const row: Row = {};
      for (const [key, column] of columns) row[key] = given(values as Row, key, column);
      return row as Model<T>;
    },
    read: pick().read,
    pick,
  };
}
