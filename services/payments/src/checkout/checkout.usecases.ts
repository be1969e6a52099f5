import {
  CHECKOUT_SESSION_MAX_TOKENS,
  CHECKOUT_SESSION_TTL_SECONDS,
  type CheckoutSessionInput,
  type CheckoutTokenInput,
} from '@pps/shared/contract';
import type { FieldCipher } from '@pps/shared/crypto';
import { randomSecret, sha256Hex } from '@pps/shared/crypto';
import { withTransaction } from '@pps/shared/db';
import { ownedBy, type ServiceContext, wallClockNow } from '@pps/shared/http';
import { isId, newId } from '@pps/shared/ids';
import { findCustomer, findMerchantOwner } from '../customers/customers.repository';
import type { Token } from '../tokens/tokens.repository';
import { createToken } from '../tokens/tokens.usecases';
import { checkoutErrors, checkoutPointers } from './checkout.errors';
import {
  addCheckoutToken,
  type CheckoutSession,
  findCheckoutSession,
  insertCheckoutSession,
  lockCheckoutSession,
} from './checkout.repository';

/**
 * POST /checkout/sessions: a session the hosted card form vaults cards for, with a client secret that exists in
 * clear only in this return value (the table keeps its SHA-256). `customerId` and `merchantId`, when given, must be
 * the account's. Expiry is real time: the session is a credential, not a business record.
 */
export async function createCheckoutSession({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: CheckoutSessionInput;
}): Promise<{ session: CheckoutSession; clientSecret: string }> {
  if (input.customerId !== undefined) {
    const customer = isId('customer', input.customerId) ? await findCustomer(ctx.db, input.customerId) : undefined;
    ownedBy(customer, ctx, 'customer', input.customerId, { pointer: checkoutPointers.customerId });
  }
  if (input.merchantId !== undefined) {
    const merchant = isId('merchant', input.merchantId) ? await findMerchantOwner(ctx.db, input.merchantId) : undefined;
    ownedBy(merchant, ctx, 'merchant', input.merchantId, { pointer: checkoutPointers.merchantId });
  }
  const now = wallClockNow(ctx);
  const clientSecret = randomSecret('cs_secret_');
  const session = await insertCheckoutSession(ctx.db, {
    id: newId('checkoutSession', now.getTime()),
    accountId: ctx.accountId,
    appId: ctx.appId,
    clientSecretHash: sha256Hex(clientSecret),
    allowedOrigins: input.allowedOrigins,
    customerId: input.customerId ?? null,
    merchantId: input.merchantId ?? null,
    maxTokens: CHECKOUT_SESSION_MAX_TOKENS,
    tokenIds: [],
    expiresAt: new Date(now.getTime() + CHECKOUT_SESSION_TTL_SECONDS * 1000),
    createdAt: now,
    updatedAt: now,
  });
  ctx.log.info(
    { checkoutSessionId: session.id, allowedOrigins: session.allowedOrigins, customerId: session.customerId },
    'checkout session created',
  );
  return { session, clientSecret };
}

/** GET /checkout/sessions/{id}: 404 when it does not exist, 403 when it is another account's. */
export async function getCheckoutSession({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { id: string };
}): Promise<CheckoutSession> {
  const session = isId('checkoutSession', input.id) ? await findCheckoutSession(ctx.db, input.id) : undefined;
  return ownedBy(session, ctx, 'checkoutSession', input.id);
}

/**
 * POST /checkout/sessions/{id}/tokens, the hosted form's card POST. The gateway checked the client secret and
 * forwards as the session's account with the session id as the caller's app (a call with an app token can never
 * carry that), so a request that did not come through that check is refused here too. In one transaction, with the
 * session locked: it must be the caller's, unexpired and under its token limit; then the card is vaulted by the
 * very use case of POST /tokens (same checks, same encryption, the security code dropped), for the session's
 * customer, and the token is recorded on the session. Any failure rolls everything back: nothing is stored.
 */
export async function createCheckoutToken({
  ctx,
  cipher,
  input,
}: {
  ctx: ServiceContext;
  cipher: FieldCipher;
  input: { sessionId: string; attributes: CheckoutTokenInput };
}): Promise<Token> {
  const { sessionId, attributes } = input;
  if (ctx.appId !== sessionId) throw checkoutErrors.notThisSession();
  return withTransaction(ctx.db, async (tx) => {
    const locked = isId('checkoutSession', sessionId) ? await lockCheckoutSession(tx, sessionId) : undefined;
    const session = ownedBy(locked, ctx, 'checkoutSession', sessionId);
    const now = wallClockNow(ctx);
    if (now.getTime() >= session.expiresAt.getTime()) throw checkoutErrors.expired(session.id, session.expiresAt);
    if (session.tokenIds.length >= session.maxTokens) throw checkoutErrors.tokenLimit(session.id, session.maxTokens);
    const token = await createToken({
      ctx: { ...ctx, db: tx },
      cipher,
      input: { ...attributes, customerId: session.customerId ?? undefined },
    });
    await addCheckoutToken(tx, session, token.id, now);
    ctx.log.info({ checkoutSessionId: session.id, tokenId: token.id }, 'card vaulted through checkout');
    return token;
  });
}
