import { type DbOrTx, type Keyset, keysetPage, keysetRead, placeIn, schema } from '@pps/shared/db';
import { count, eq } from 'drizzle-orm';

const { achFiles } = schema;

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
      .select({
        id: achFiles.id,
        createdAt: achFiles.createdAt,
        batchCount: achFiles.batchCount,
        entryCount: achFiles.entryCount,
        entryHash: achFiles.entryHash,
        totalDebit: achFiles.totalDebit,
        totalCredit: achFiles.totalCredit,
        paymentIds: achFiles.paymentIds,
        payoutIds: achFiles.payoutIds,
      })
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
