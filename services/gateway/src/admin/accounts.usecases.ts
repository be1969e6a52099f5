import { randomSecret, sha256Hex } from '@pps/shared/crypto';
import { type Db, schema, withTransaction } from '@pps/shared/db';
import { notFound } from '@pps/shared/http';
import { newId } from '@pps/shared/ids';
import { eq } from 'drizzle-orm';

const { accounts, apps } = schema;

export type CreatedAccount = { account: typeof accounts.$inferSelect; apiKey: string; appId: string };

/** Onboards an account with one app. The API key exists in plaintext only in this return value. */
export async function createAccount(db: Db, input: { name: string }, now = new Date()): Promise<CreatedAccount> {
  const apiKey = randomSecret('sk_test_');
  const accountId = newId('account', now.getTime());
  const appId = newId('app', now.getTime());
  const account = await withTransaction(db, async (tx) => {
    const [row] = await tx
      .insert(accounts)
      .values({
        id: accountId,
        name: input.name,
        apiKeyHash: sha256Hex(apiKey),
        apiKeyLast4: apiKey.slice(-4),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await tx.insert(apps).values({ id: appId, accountId, name: `${input.name} app`, createdAt: now, updatedAt: now });
    return row!;
  });
  return { account, apiKey, appId };
}

export async function setAccountStatus(db: Db, id: string, status: 'active' | 'disabled', now = new Date()) {
  const [row] = await db.update(accounts).set({ status, updatedAt: now }).where(eq(accounts.id, id)).returning();
  if (!row) throw notFound('account_not_found', `No account ${id}`);
  return row;
}

export const accountDocument = (
  baseUrl: string,
  account: typeof accounts.$inferSelect,
  secrets?: { apiKey: string; appId: string },
) => ({
  links: { self: `${baseUrl}/admin/accounts/${account.id}` },
  data: {
    type: 'accounts' as const,
    id: account.id,
    attributes: {
      name: account.name,
      status: account.status,
      createdAt: account.createdAt.toISOString(),
      updatedAt: account.updatedAt.toISOString(),
      ...secrets,
    },
  },
});
