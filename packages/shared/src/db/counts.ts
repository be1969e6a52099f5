import { and, count, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { DbOrTx } from './client';
import { type CountedList, listCounts } from './schema/counts';

export { type CountedList, countedLists } from './schema/counts';

/**
 * A list's kept total for one scope (a merchant, an account, an endpoint): the rows of every bucket, or of `buckets`
 * only; a few rows read whatever the scope's history (`list_counts`, kept by triggers in the statements that write
 * the rows).
 */
export async function keptCount(
  db: DbOrTx,
  query: { list: CountedList; scope: string; buckets?: string[] },
): Promise<number> {
  const [row] = await db
    .select({ total: sql<string>`coalesce(sum(${listCounts.count}), 0)::text` })
    .from(listCounts)
    .where(
      and(
        eq(listCounts.list, query.list),
        eq(listCounts.scope, query.scope),
        query.buckets ? inArray(listCounts.bucket, query.buckets) : undefined,
      ),
    );
  return Number(row?.total ?? 0);
}

/**
 * A list's total: its kept count when `kept` names one, else a count of the rows `where` matches, for the filters no
 * count is kept by (a date range, one record's rows: bounded by the filter, not by the history).
 */
export function listTotal(
  db: DbOrTx,
  table: PgTable,
  where: SQL | undefined,
  kept: { list: CountedList; scope: string; buckets?: string[] } | undefined,
): Promise<number> {
  if (kept) return keptCount(db, kept);
  return db
    .select({ total: count() })
    .from(table)
    .where(where)
    .then(([counted]) => counted?.total ?? 0);
}
