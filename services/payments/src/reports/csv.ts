import { stringify } from 'csv-stringify/sync';
import type { Context } from 'hono';
import { accepts } from 'hono/accepts';

/**
 * Reports as CSV (docs/api.md, Reports): chosen by `Accept` (`text/csv`, or `text/*`, preferred to JSON by its
 * q-value); any other Accept, `*\/*` and none at all get JSON, the API's one format elsewhere (no 406).
 */
export const wantsCsv = (c: Context) =>
  accepts(c, { header: 'Accept', supports: ['application/json', 'text/csv'], default: 'application/json' }) ===
  'text/csv';

/**
 * A CSV document (RFC 4180 quoting by csv-stringify): a header row of `columns`, then one row per record; an absent
 * or null value is an empty cell.
 */
export function csvText<K extends string>(
  columns: readonly K[],
  records: Partial<Record<K, string | number | null>>[],
) {
  return stringify(records, { header: true, columns: [...columns], record_delimiter: 'windows' });
}

/** The CSV answer: UTF-8 text, offered to save as `filename`. */
export const csvResponse = (c: Context, text: string, filename: string) =>
  c.body(text, 200, {
    'content-type': 'text/csv; charset=utf-8',
    'content-disposition': `attachment; filename="${filename}"`,
  });
