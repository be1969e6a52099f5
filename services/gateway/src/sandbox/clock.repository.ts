import { type DbOrTx, schema } from '@pps/shared/db';
import { eq } from 'drizzle-orm';

const { accounts } = schema;

/** How far the account's sandbox clock runs ahead of real time (0 for an account that is gone). */
export async function readClockOffset(db: DbOrTx, accountId: string): Promise<number> {
  const [row] = await db
    .select({ offset: accounts.clockOffsetSeconds })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  return row?.offset ?? 0;
}

/** The offset, with the account's row locked until the transaction ends: moves of one clock run one at a time. */
export async function lockClockOffset(tx: DbOrTx, accountId: string): Promise<number> {
  const [row] = await tx
    .select({ offset: accounts.clockOffsetSeconds })
    .from(accounts)
    .where(eq(accounts.id, accountId))
    .for('update');
  return row?.offset ?? 0;
}

export async function setClockOffset(tx: DbOrTx, accountId: string, offsetSeconds: number, now: Date): Promise<void> {
  await tx
    .update(accounts)
    .set({ clockOffsetSeconds: offsetSeconds, updatedAt: now })
    .where(eq(accounts.id, accountId));
}
