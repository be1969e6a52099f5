import { type DbOrTx, type Keyset, keysetPage, keysetRead, type Place, placeIn, schema } from '@pps/shared/db';
import { count, eq, inArray, sql } from 'drizzle-orm';

const { achFiles, payments, payouts } = schema;

/** What a list shows of a file: everything but its content. */
const SUMMARY = {
  id: achFiles.id,
  createdAt: achFiles.createdAt,
  batchCount: achFiles.batchCount,
  entryCount: achFiles.entryCount,
  entryHash: achFiles.entryHash,
  totalDebit: achFiles.totalDebit,
  totalCredit: achFiles.totalCredit,
  paymentIds: achFiles.paymentIds,
  payoutIds: achFiles.payoutIds,
};

/** A file's place in the list, for a cursor; undefined when there is no such file. */
export const achFilePlace = (db: DbOrTx, id: string) => placeIn(db, achFiles, id);

/**
 * A page of the NACHA files settlement and payout runs wrote, newest first (from a cursor, from its place on),
 * without their content; and how many there are.
 */
export async function listAchFileRows(db: DbOrTx, page: { limit: number; offset: number; keyset?: Keyset }) {
  const read = keysetRead(achFiles, page.keyset, page.limit);
  const [rows, totals] = await Promise.all([
    db
      .select(SUMMARY)
      .from(achFiles)
      .where(read.where)
      .orderBy(...read.orderBy)
      .limit(read.limit)
      .offset(page.offset),
    db.select({ total: count() }).from(achFiles),
  ]);
  return { ...keysetPage(rows, page.limit, page.keyset), total: totals[0]?.total ?? 0 };
}

/** A file's content as stored: the FieldCipher ciphertext. */
export async function findAchFileContent(db: DbOrTx, id: string): Promise<string | undefined> {
  const [row] = await db.select({ content: achFiles.contentEnc }).from(achFiles).where(eq(achFiles.id, id));
  return row?.content;
}

/**
 * `limit` files older than `after` (from the newest without it), newest first, and whether more follow: the read is
 * bounded at the cursor by the (created_at, id) index, and nothing counts the files, so a page costs the same however
 * many there are.
 */
export async function achFileRowsAfter(db: DbOrTx, page: { limit: number; after?: Place }) {
  const read = keysetRead(achFiles, page.after && { ...page.after, toward: 'older' }, page.limit);
  const rows = await db
    .select(SUMMARY)
    .from(achFiles)
    .where(read.where)
    .orderBy(...read.orderBy)
    .limit(page.limit + 1);
  return { rows: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}

/** One file's summary, without its content; undefined when there is no such file. */
export async function findAchFileSummary(db: DbOrTx, id: string) {
  const [row] = await db.select(SUMMARY).from(achFiles).where(eq(achFiles.id, id));
  return row;
}

/** The status and trace number of the payments and payouts a file carries, each read by its id. */
export async function achFileRecords(db: DbOrTx, ids: { paymentIds: string[]; payoutIds: string[] }) {
  const [debits, credits] = await Promise.all([
    ids.paymentIds.length === 0
      ? []
      : db
          .select({
            kind: sql<'payment'>`'payment'`,
            id: payments.id,
            status: payments.status,
            traceNumber: payments.traceNumber,
          })
          .from(payments)
          .where(inArray(payments.id, ids.paymentIds)),
    ids.payoutIds.length === 0
      ? []
      : db
          .select({
            kind: sql<'payout'>`'payout'`,
            id: payouts.id,
            status: payouts.status,
            traceNumber: payouts.traceNumber,
          })
          .from(payouts)
          .where(inArray(payouts.id, ids.payoutIds)),
  ]);
  return [...debits, ...credits];
}
