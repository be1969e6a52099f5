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

/**
 * Many JSON documents as one parameter of a statement written out: `$n::text::jsonb`, a JSON array, taken apart with
 * `jsonb_array_elements($n::text::jsonb) with ordinality` and joined to the `unnest(…) with ordinality` of the
 * other columns on the ordinal. As a `text[]` each document's every quote was escaped by the driver: a third more
 * bytes on the socket for a payment's event and answer, and the driver's escaping 3 % of a payment's CPU.
 */
export const jsonArray = (documents: readonly unknown[]): string => JSON.stringify(documents);
