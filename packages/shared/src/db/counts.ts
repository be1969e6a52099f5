import { and, eq, inArray, sql } from 'drizzle-orm';
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
