import { schema } from '@pps/shared/db';
import { eq } from 'drizzle-orm';
import { createAccount, createApp, replaceApiKey } from '../admin/accounts.usecases';
import { listApps } from '../auth/auth.repository';
import type { GatewayContext } from '../deps';

/**
 * Which account the demo shop charges (docs/decisions.md, Checkout). The demo account when this start created it:
 * its key, printed once, is in hand only then, since only its hash is kept. Otherwise (an earlier start made it, or
 * DEMO_ACCOUNT is off) the shop's own account, "Demo Shop", made once and given a new API key at each start, which
 * `npm start` prints so that the shop's payments can be looked up too.
 */

export const DEMO_SHOP_ACCOUNT = 'Demo Shop';
/** The app the shop's calls carry, beside the account's first. */
export const DEMO_SHOP_APP = 'Demo shop checkout';

/** An account's API key and its first app, as `accounts:create` and `npm start` print them. */
export type AccountKey = { accountId: string; apiKey: string; appId: string };

export type DemoShopAccount = AccountKey & {
  /** `demo`: the demo account made by this start; `own`: "Demo Shop", with a key new at this start. */
  kind: 'demo' | 'own';
  /**
   * The shop's own app in the account: an app key made for `appId` (README's worked example makes one) revokes
   * that app's tokens only, never the shop's.
   */
  shopAppId: string;
};

type Ctx = Pick<GatewayContext, 'db' | 'clock' | 'log'>;

/** The account the shop charges: `demo`, the demo account this start created, when there is one. */
export async function demoShopAccount({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { demo?: AccountKey };
}): Promise<DemoShopAccount> {
  const account = input.demo ?? (await ownAccount(ctx));
  return { ...account, kind: input.demo ? 'demo' : 'own', shopAppId: await shopApp(ctx, account.accountId) };
}

/** "Demo Shop": made the first time, else given a new API key (the one before was never shown). */
async function ownAccount(ctx: Ctx): Promise<AccountKey> {
  const [existing] = await ctx.db
    .select()
    .from(schema.accounts)
    .where(eq(schema.accounts.name, DEMO_SHOP_ACCOUNT))
    .limit(1);
  if (!existing) {
    const created = await createAccount({ ctx, input: { name: DEMO_SHOP_ACCOUNT } });
    return { accountId: created.account.id, apiKey: created.apiKey, appId: created.appId };
  }
  const { apiKey } = await replaceApiKey({ ctx, input: { id: existing.id } });
  const first = (await listApps(ctx.db, existing.id)).find((app) => app.name !== DEMO_SHOP_APP);
  if (!first) throw new Error(`demo shop: account ${existing.id} has no app`);
  return { accountId: existing.id, apiKey, appId: first.id };
}

async function shopApp(ctx: Ctx, accountId: string): Promise<string> {
  const existing = (await listApps(ctx.db, accountId)).find((app) => app.name === DEMO_SHOP_APP);
  return existing?.id ?? (await createApp({ ctx, input: { accountId, name: DEMO_SHOP_APP } })).id;
}
