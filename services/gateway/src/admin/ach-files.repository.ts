import { type DbOrTx, schema } from '@pps/shared/db';
import { count, desc, eq } from 'drizzle-orm';

const { achFiles } = schema;

/** A page of the NACHA files settlement and payout runs wrote, newest first, without their content; and how many there are. */
export async function listAchFileRows(db: DbOrTx, page: { limit: number; offset: number }) {
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
      .orderBy(desc(achFiles.createdAt), desc(achFiles.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ total: count() }).from(achFiles),
  ]);
  return { rows, total: totals[0]?.total ?? 0 };
}

/** A file's content as stored: the FieldCipher ciphertext. */
export async function findAchFileContent(db: DbOrTx, id: string): Promise<string | undefined> {
  const [row] = await db.select({ content: achFiles.contentEnc }).from(achFiles).where(eq(achFiles.id, id));
  return row?.content;
}
