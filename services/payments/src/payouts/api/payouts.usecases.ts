import type { CreatePayoutBody } from '@pps/shared/contract';
import {
  invalidDateRange,
  isOperator,
  keysetOf,
  ownedBy,
  type PageQuery,
  type ServiceContext,
  wallClockNow,
} from '@pps/shared/http';
import { isId } from '@pps/shared/ids';
import { type IdempotentResponse, idempotencyKeyOf, runIdempotent } from '../../payments/idempotency/idempotency';
import { findMerchant } from '../../payments/model/payments.repository';
import { createPayouts } from '../run/create-payouts';
import { payoutErrors, pointers } from './payouts.errors';
import { payoutDocument, reconciliationResource } from './payouts.presenter';
import {
  carriedBalanceTransactions,
  findPayout,
  listPayoutRows,
  lockPayoutSchedule,
  type Payout,
  type PayoutListFilter,
  payoutPlace,
} from './payouts.repository';

/**
 * POST /payouts: a manual payout of an active merchant's available balance, all of it or `amount`, idempotent per
 * account exactly as POST /payments is (`runIdempotent`: one key space, `data.requestId` or the `Idempotency-Key`
 * header, the 201 stored with the key and replayed; a refusal creates nothing and is not stored). In its transaction
 * the merchant's payout schedule row is locked first, so the payout run cannot pay the same money meanwhile.
 */
export async function createPayout({
  ctx,
  input,
  idempotencyKey,
  raw,
}: {
  ctx: ServiceContext;
  input: CreatePayoutBody['data'];
  idempotencyKey: string | undefined;
  raw: unknown;
}): Promise<IdempotentResponse> {
  // Before the transaction: two different keys are a 400 that touches nothing.
  const key = idempotencyKeyOf({ requestId: input.requestId, header: idempotencyKey });
  const { merchantId, amount } = input.attributes;
  return runIdempotent({
    db: ctx.db,
    accountId: ctx.accountId,
    data: raw as { requestId?: unknown },
    key,
    ttlDays: ctx.config.IDEMPOTENCY_TTL_DAYS,
    baseUrl: ctx.config.PUBLIC_BASE_URL,
    now: wallClockNow(ctx),
    operation: async (tx) => {
      // An id that cannot be ours is not looked up.
      const found = isId('merchant', merchantId) ? await findMerchant(tx, merchantId) : undefined;
      const merchant = ownedBy(found, ctx, 'merchant', merchantId, { pointer: pointers.merchantId });
      if (merchant.status !== 'active') throw payoutErrors.merchantNotActive(merchant.id, merchant.status);
      if (!(await lockPayoutSchedule(tx, merchant.id))) {
        throw new Error(`merchant ${merchant.id} has no payout schedule`);
      }
      const [outcome] = await createPayouts(
        tx,
        [
          {
            accountId: ctx.accountId,
            merchantId: merchant.id,
            now: ctx.clock.now(),
            method: 'manual',
            amount,
            requestId: ctx.requestId,
          },
        ],
        { minimum: ctx.config.PAYOUT_MINIMUM },
      );
      if (!outcome) throw new Error('createPayouts answered no outcome');
      if (!outcome.created) {
        throw outcome.reason === 'no_bank_account'
          ? payoutErrors.noBankAccount(merchant.id)
          : payoutErrors.insufficientAvailableBalance(amount, outcome.available);
      }
      const { payout } = outcome;
      ctx.log.info({ payoutId: payout.id, merchantId: payout.merchantId, amount: payout.amount }, 'payout created');
      return { status: 201, body: payoutDocument(ctx.config.PUBLIC_BASE_URL, payout), paymentId: null };
    },
  });
}

/** A payout of the caller's account: 404 unknown (or not a payout id at all), 403 another account's. */
async function ownedPayout(ctx: ServiceContext, id: string): Promise<Payout> {
  const payout = isId('payout', id) ? await findPayout(ctx.db, id) : undefined;
  return ownedBy(payout, ctx, 'payout', id);
}

export const getPayout = async ({ ctx, input }: { ctx: ServiceContext; input: { id: string } }) =>
  ownedPayout(ctx, input.id);

/** GET /payouts/{id}/reconciliation: what the payout carried, with the forward rows, adding up to its amount. */
export async function getPayoutReconciliation({ ctx, input }: { ctx: ServiceContext; input: { id: string } }) {
  const payout = await ownedPayout(ctx, input.id);
  return reconciliationResource(payout, await carriedBalanceTransactions(ctx.db, payout.id));
}

/** The query of GET /payouts: the repository's filter but the account, which the caller's context gives. */
export type ListPayoutsInput = Omit<PayoutListFilter, 'accountId' | 'keyset'> & PageQuery;

/**
 * GET /payouts: the account's payouts, or one merchant's (an unknown merchant is a 400, another account's a 403,
 * as GET /payments answers), newest first. The operator (the CLI) reads any merchant's.
 */
export async function listPayouts({ ctx, input }: { ctx: ServiceContext; input: ListPayoutsInput }) {
  const operator = isOperator(ctx);
  const merchantId = input.merchantId?.trim() || undefined;
  if (merchantId !== undefined) {
    const merchant = isId('merchant', merchantId) ? await findMerchant(ctx.db, merchantId) : undefined;
    if (!merchant) throw payoutErrors.invalidMerchantId(`No merchant ${merchantId}`);
    if (!operator) ownedBy(merchant, ctx, 'merchant', merchantId, { parameter: 'merchantId' });
  }
  if (input.startDate && input.endDate && input.startDate > input.endDate) throw invalidDateRange();
  const scope = { merchantId, accountId: operator ? undefined : ctx.accountId };
  const keyset = await keysetOf(input, (id) => payoutPlace(ctx.db, scope, id));
  const { rows, total, travel } = await listPayoutRows(ctx.db, { ...input, ...scope, keyset });
  return { rows, page: { total, limit: input.limit, offset: input.offset, travel } };
}
