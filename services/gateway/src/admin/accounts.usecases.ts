import { randomSecret, sha256Hex } from '@pps/shared/crypto';
import { schema, withTransaction } from '@pps/shared/db';
import { notFound } from '@pps/shared/http';
import { newId } from '@pps/shared/ids';
import { type ApiVersion, NEWEST_VERSION } from '@pps/shared/versions';
import { desc, eq, lt } from 'drizzle-orm';
import type { GatewayContext } from '../deps';

const { accounts, apps } = schema;

export type CreatedAccount = { account: typeof accounts.$inferSelect; apiKey: string; appId: string };

/** Onboards an account with one app. The API key exists in plaintext only in this return value. */
export async function createAccount({
  ctx,
  input,
}: {
  ctx: Pick<GatewayContext, 'db' | 'clock' | 'log'>;
  input: { name: string };
}): Promise<CreatedAccount> {
  const now = ctx.clock.now();
  const apiKey = randomSecret('sk_test_');
  const accountId = newId('account', now.getTime());
  const appId = newId('app', now.getTime());
  const account = await withTransaction(ctx.db, async (tx) => {
    const [row] = await tx
      .insert(accounts)
      .values({
        id: accountId,
        name: input.name,
        apiKeyHash: sha256Hex(apiKey),
        apiKeyLast4: apiKey.slice(-4),
        // Pinned to the newest version (docs/api.md, Versions).
        apiVersion: NEWEST_VERSION,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await tx.insert(apps).values({ id: appId, accountId, name: `${input.name} app`, createdAt: now, updatedAt: now });
    return row!;
  });
  ctx.log.info({ accountId, appId }, 'account created');
  return { account, apiKey, appId };
}

/**
 * Another app of an account, with app keys and tokens of its own: a new app key for one app never revokes another's
 * tokens (the demo shop charges from one beside the account's first, which README's worked example makes keys for).
 */
export async function createApp({
  ctx,
  input,
}: {
  ctx: Pick<GatewayContext, 'db' | 'clock' | 'log'>;
  input: { accountId: string; name: string };
}) {
  const now = ctx.clock.now();
  const [app] = await ctx.db
    .insert(apps)
    .values({
      id: newId('app', now.getTime()),
      accountId: input.accountId,
      name: input.name,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  ctx.log.info({ accountId: input.accountId, appId: app!.id }, 'app created');
  return app!;
}

/**
 * A new API key for an account; the one before stops working (a gateway may accept it from its auth cache for up to
 * AUTH_CACHE_TTL_MS more). The key exists in plaintext only in this return value.
 */
export async function replaceApiKey({
  ctx,
  input,
}: {
  ctx: Pick<GatewayContext, 'db' | 'clock' | 'log'>;
  input: { id: string };
}): Promise<{ account: typeof accounts.$inferSelect; apiKey: string }> {
  const apiKey = randomSecret('sk_test_');
  const [account] = await ctx.db
    .update(accounts)
    .set({ apiKeyHash: sha256Hex(apiKey), apiKeyLast4: apiKey.slice(-4), updatedAt: ctx.clock.now() })
    .where(eq(accounts.id, input.id))
    .returning();
  if (!account) throw notFound('account', input.id);
  ctx.log.info({ accountId: account.id }, 'account API key replaced');
  return { account, apiKey };
}

export async function setAccountStatus({
  ctx,
  input,
}: {
  ctx: Pick<GatewayContext, 'db' | 'clock' | 'log'>;
  input: { id: string; status?: 'active' | 'disabled'; apiVersion?: string };
}) {
  const { id, status, apiVersion } = input;
  const [row] = await ctx.db
    .update(accounts)
    .set({ ...(status ? { status } : {}), ...(apiVersion ? { apiVersion } : {}), updatedAt: ctx.clock.now() })
    .where(eq(accounts.id, id))
    .returning();
  if (!row) throw notFound('account', id);
  ctx.log.info({ accountId: row.id, status, apiVersion }, 'account changed');
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
      apiVersion: account.apiVersion as ApiVersion,
      createdAt: account.createdAt.toISOString(),
      updatedAt: account.updatedAt.toISOString(),
      ...secrets,
    },
  },
});

/**
 * A page of accounts, newest first, read from the one after `after` (ids sort by creation): a page costs the same
 * however many accounts there are. `next` is the id to read the following page from, if there is one.
 */
export async function listAccounts({
  ctx,
  input,
}: {
  ctx: Pick<GatewayContext, 'db'>;
  input: { after?: string; limit: number };
}) {
  const rows = await ctx.db
    .select()
    .from(accounts)
    .where(input.after ? lt(accounts.id, input.after) : undefined)
    .orderBy(desc(accounts.id))
    .limit(input.limit + 1);
  const page = rows.slice(0, input.limit);
  return { accounts: page, next: rows.length > input.limit ? page.at(-1)?.id : undefined };
}

/** One account by id, or undefined: the operator's pages that act for an account read its name and sandbox clock. */
export async function findAccount({ ctx, input }: { ctx: Pick<GatewayContext, 'db'>; input: { id: string } }) {
  const [row] = await ctx.db.select().from(accounts).where(eq(accounts.id, input.id));
  return row;
}
