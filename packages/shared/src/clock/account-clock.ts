import { asc, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { accounts } from '../db/schema/accounts';

/** The account's clock: real time plus its sandbox offset (undefined for an unknown account). */
export async function accountClock(tx: DbOrTx, accountId: string, now: Date): Promise<Date | undefined> {
  const [row] = await tx
    .select({ offset: accounts.clockOffsetSeconds })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  return row && new Date(now.getTime() + row.offset * 1000);
}

/**
 * The accounts whose sandbox clock is ahead of real time: the background passes (settlement, payouts) take what
 * the real clock leaves them, each by its own clock.
 */
export async function accountsAhead(db: DbOrTx): Promise<string[]> {
  const rows = await db
    .select({ id: accounts.id })
    .from(accounts)
    .where(sql`${accounts.clockOffsetSeconds} > 0`)
    .orderBy(asc(accounts.id));
  return rows.map((row) => row.id);
}
