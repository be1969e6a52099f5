import type { MerchantResource } from '@pps/shared/contract';
import { type DbOrTx, schema, withTransaction } from '@pps/shared/db';
import { isOperator, type ServiceContext } from '@pps/shared/http';
import { assertMerchantTransition, type MerchantStatus } from '@pps/shared/states';
import { eq } from 'drizzle-orm';
import { presentMerchant, recordMerchantEvent, requireMerchant } from '../merchants/model/merchants.access';
import { operatorOnly } from '../merchants/model/merchants.errors';
import { updateMerchantRow } from '../merchants/model/merchants.repository';

function assertOperator(ctx: ServiceContext): void {
  if (!isOperator(ctx)) throw operatorOnly();
}

/** Ops act in real time; the merchant's timestamps follow its account's sandbox clock, as the account's own calls do. */
async function accountNow(tx: DbOrTx, ctx: ServiceContext, accountId: string): Promise<Date> {
  const [account] = await tx
    .select({ offset: schema.accounts.clockOffsetSeconds })
    .from(schema.accounts)
    .where(eq(schema.accounts.id, accountId));
  return new Date(ctx.clock.now().getTime() + (account?.offset ?? 0) * 1000);
}

/**
 * Ops: moves a merchant along the lifecycle (pending→active|closed, active→suspended|closed,
 * suspended→active|closed; closed is final); anything else is a 422 `illegal_transition`.
 */
export async function changeMerchantStatus({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { merchantId: string; status: MerchantStatus; reason?: string };
}): Promise<MerchantResource> {
  assertOperator(ctx);
  return withTransaction(ctx.db, async (tx) => {
    const current = await requireMerchant(tx, ctx, input.merchantId, { lock: true });
    assertMerchantTransition(current.status, input.status);
    const row = await updateMerchantRow(tx, current.id, {
      status: input.status,
      statusReason: input.reason ?? null,
      updatedAt: await accountNow(tx, ctx, current.accountId),
    });
    ctx.log.info({ merchantId: row.id, from: current.status, to: row.status }, 'merchant status changed');
    return recordMerchantEvent(tx, {
      type: 'merchant.status_changed',
      row,
      previousStatus: current.status,
      requestId: ctx.requestId,
    });
  });
}

/** Ops: switches merchant features (secondSplit). Setting what is already set changes nothing. */
export async function updateMerchantFeatures({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { merchantId: string; features: { secondSplit: boolean } };
}): Promise<MerchantResource> {
  assertOperator(ctx);
  return withTransaction(ctx.db, async (tx) => {
    const current = await requireMerchant(tx, ctx, input.merchantId, { lock: true });
    if ((current.features.secondSplit === true) === input.features.secondSplit) return presentMerchant(tx, current);
    const row = await updateMerchantRow(tx, current.id, {
      features: { ...current.features, ...input.features },
      updatedAt: await accountNow(tx, ctx, current.accountId),
    });
    ctx.log.info({ merchantId: row.id, features: row.features }, 'merchant features changed');
    return recordMerchantEvent(tx, { type: 'merchant.updated', row, requestId: ctx.requestId });
  });
}
