import { and, asc, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { DbOrTx } from './client';

/** The columns every list is ordered by: newest first by (created_at, id). */
export type ListOrder = { createdAt: PgColumn; id: PgColumn };

/** An item's place in list order: what a cursor stands for. */
export type Place = { createdAt: Date; id: string };

/**
 * Where a page starts when a cursor names an item: that item's place, and which way the page reads from it
 * (`older`: the items after it in list order, `startingAfter`; `newer`: the items before it, `endingBefore`).
 */
export type Keyset = Place & { toward: 'older' | 'newer' };

/** A page read from a keyset: which way it read, and whether more items lie beyond it that way. */
export type Travel = { toward: Keyset['toward']; hasMore: boolean };

/**
 * The cursor item's place, when `id` is an item of the list's scope (`scope`: the merchant's, the account's…); a
 * read by primary key. The list's filters (status, type) are not asked of it.
 */
export async function placeIn(
  db: DbOrTx,
  table: PgTable & ListOrder,
  id: string,
  scope?: SQL,
): Promise<Place | undefined> {
  const [row] = await db
    .select({ createdAt: table.createdAt, id: table.id })
    .from(table as PgTable)
    .where(and(eq(table.id, id), scope));
  return row as Place | undefined;
}

/**
 * A page's condition, order and how many rows it reads: newest first; from a keyset, the items past it read along
 * the way it points (toward newer: oldest first, `keysetPage` turns them round), one more than the page shows, to
 * know whether more follow. A row-value comparison, so the index on (…, created_at, id) bounds the scan at the
 * cursor instead of reading the items before it.
 */
export function keysetRead(
  columns: ListOrder,
  keyset: Keyset | undefined,
  limit: number,
): { where?: SQL; orderBy: SQL[]; limit: number } {
  const newestFirst = [desc(columns.createdAt), desc(columns.id)];
  if (!keyset) return { orderBy: newestFirst, limit };
  const item = sql`(${columns.createdAt}, ${columns.id})`;
  const cursor = sql`(${sql.param(keyset.createdAt, columns.createdAt)}, ${sql.param(keyset.id, columns.id)})`;
  return keyset.toward === 'older'
    ? { where: sql`${item} < ${cursor}`, orderBy: newestFirst, limit: limit + 1 }
    : { where: sql`${item} > ${cursor}`, orderBy: [asc(columns.createdAt), asc(columns.id)], limit: limit + 1 };
}

/** The rows a page read, as it shows them (newest first), and after a keyset which way it read and whether more follow. */
export function keysetPage<T>(rows: T[], limit: number, keyset?: Keyset): { rows: T[]; travel?: Travel } {
  if (!keyset) return { rows };
  const page = rows.slice(0, limit);
  return {
    rows: keyset.toward === 'newer' ? page.reverse() : page,
    travel: { toward: keyset.toward, hasMore: rows.length > limit },
  };
}
