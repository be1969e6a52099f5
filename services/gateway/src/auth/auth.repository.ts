import { type DbOrTx, mapSent, rowMapper, type Sent, schema, send, withTransaction } from '@pps/shared/db';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { z } from 'zod';

const { accounts, apps, appKeys } = schema;

export const findAccountByApiKeyHash = async (db: DbOrTx, apiKeyHash: string) =>
  (await db.select().from(accounts).where(eq(accounts.apiKeyHash, apiKeyHash)).limit(1))[0];

export const findApp = async (db: DbOrTx, id: string) =>
  (await db.select().from(apps).where(eq(apps.id, id)).limit(1))[0];

export const listApps = (db: DbOrTx, accountId: string) =>
  db.select().from(apps).where(eq(apps.accountId, accountId)).orderBy(apps.createdAt);

const keyWithApp = rowMapper({
  appId: appKeys.appId,
  accountId: apps.accountId,
  version: appKeys.version,
  superseded: z.boolean(),
  appKeyVersion: apps.keyVersion,
});
export type KeyWithApp = ReturnType<typeof keyWithApp>;

const KEY_WITH_APP = `select k.app_id, a.account_id, k.version, k.superseded_at is not null as superseded, a.key_version
  from app_keys as k join apps as a on a.id = k.app_id
  where k.key_hash = $1`;

/**
 * An app key with its app's account and newest key version: one statement, prepared, written out (`POST
 * /auth/token`, a hot path `npm run bench` measures).
 */
export function findAppKeyWithApp(db: DbOrTx, keyHash: string): Sent<KeyWithApp | undefined> {
  return mapSent(send(db, KEY_WITH_APP, [keyHash]), ([row]) => row && keyWithApp(row));
}

/**
 * Issues app key version N+1 and supersedes every older one, atomically: the app row is locked,
 * so two concurrent key creations produce two versions, the later one winning.
 */
export async function rotateAppKey(db: DbOrTx, appId: string, keyHash: string, now: Date): Promise<number> {
  return withTransaction(db, async (tx) => {
    const [app] = await tx
      .update(apps)
      .set({ keyVersion: sql`${apps.keyVersion} + 1`, updatedAt: now })
      .where(eq(apps.id, appId))
      .returning({ keyVersion: apps.keyVersion });
    if (!app) throw new Error(`app ${appId} vanished`);
    await tx
      .update(appKeys)
      .set({ supersededAt: now })
      .where(and(eq(appKeys.appId, appId), isNull(appKeys.supersededAt)));
    await tx.insert(appKeys).values({ keyHash, appId, version: app.keyVersion, createdAt: now });
    return app.keyVersion;
  });
}
