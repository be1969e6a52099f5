import type { DbOrTx } from '@pps/shared/db';
import { accounts, type ConsoleSession, consoleSessions } from '@pps/shared/db/schema';
import { eq, lt } from 'drizzle-orm';

/** A session as a request finds it: the row, and its account as the account is now (none for an operator). */
export type FoundSession = ConsoleSession & {
  account: {
    id: string;
    name: string;
    status: string;
    apiKeyHash: string;
    clockOffsetSeconds: number;
    apiVersion: string;
  } | null;
};

export const insertSession = (db: DbOrTx, row: ConsoleSession) => db.insert(consoleSessions).values(row);

/** One round trip: the session and its account, read afresh on every request (a key change ends it at once). */
export async function findSession(db: DbOrTx, id: string): Promise<FoundSession | undefined> {
  const [row] = await db
    .select({
      session: consoleSessions,
      account: {
        id: accounts.id,
        name: accounts.name,
        status: accounts.status,
        apiKeyHash: accounts.apiKeyHash,
        clockOffsetSeconds: accounts.clockOffsetSeconds,
        apiVersion: accounts.apiVersion,
      },
    })
    .from(consoleSessions)
    .leftJoin(accounts, eq(accounts.id, consoleSessions.accountId))
    .where(eq(consoleSessions.id, id));
  return row && { ...row.session, account: row.account };
}

export const touchSession = (db: DbOrTx, id: string, at: Date) =>
  db.update(consoleSessions).set({ lastSeenAt: at }).where(eq(consoleSessions.id, id));

export const deleteSession = (db: DbOrTx, id: string) => db.delete(consoleSessions).where(eq(consoleSessions.id, id));

/** Sessions idle since before `before`: gone (an index on last_seen_at keeps this bounded by what expired). */
export const deleteIdleSessions = (db: DbOrTx, before: Date) =>
  db.delete(consoleSessions).where(lt(consoleSessions.lastSeenAt, before));
