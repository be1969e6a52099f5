import { type SQL, sql } from 'drizzle-orm';

/**
 * One array parameter of text, for set-based statements (`select … from unnest($1::text[], $2::text[])`): a batch
 * of any size is one statement with a fixed number of parameters. Columns are cast back in SQL
 * (`x::bigint`, `x::timestamptz`, `x::jsonb`); null stays null.
 */
export const textArray = (values: readonly (string | number | null)[]): SQL => sql`${sql.param(texts(values))}::text[]`;

/** The same array as a parameter of a statement written out (`send`): `$n::text[]` in its text. */
export const texts = (values: readonly (string | number | null)[]): (string | null)[] =>
  values.map((value) => (value === null ? null : String(value)));
