import type { TokenInput } from '@pps/shared/contract';
import type { FieldCipher } from '@pps/shared/crypto';
import type { Travel } from '@pps/shared/db';
import { ApiError, belongsTo, keysetOf, ownedBy, type PageQuery, type ServiceContext } from '@pps/shared/http';
import { isId, newId } from '@pps/shared/ids';
import { findCustomer } from '../customers/customers.repository';
import { cardBrandOf, isCardExpired } from './card';
import { tokenErrors } from './tokens.errors';
import { type BillingAddress, findToken, insertToken, listTokens, type Token, tokenPlace } from './tokens.repository';

/** Keeps the parts that were given and not blank; an address with none is no address. */
function billingAddressOf(input: TokenInput['billingAddress']): BillingAddress | null {
  if (!input) return null;
  const parts = Object.entries(input).filter(([, value]) => typeof value === 'string' && value !== '');
  return parts.length > 0 ? (Object.fromEntries(parts) as BillingAddress) : null;
}

/**
 * POST /tokens: vaults a card. The body's shape, the Luhn check and the security code were checked by the
 * contract; what needs the clock or the database is checked here, every failure reported at once.
 * The security code goes no further than this function's input: it is never stored nor logged.
 */
export async function createToken({
  ctx,
  cipher,
  input,
}: {
  ctx: ServiceContext;
  cipher: FieldCipher;
  input: TokenInput;
}): Promise<Token> {
  const now = ctx.clock.now();
  const problems: ApiError[] = [];
  if (isCardExpired(input.card.expiry, now)) problems.push(tokenErrors.cardExpired(input.card.expiry));
  if (input.customerId !== undefined) {
    const customer = isId('customer', input.customerId) ? await findCustomer(ctx.db, input.customerId) : undefined;
    if (!belongsTo(customer, ctx.accountId)) problems.push(tokenErrors.customerNotFound(input.customerId));
  }
  if (problems.length > 0) throw ApiError.many(problems);

  const number = input.card.number;
  const token = await insertToken(ctx.db, {
    id: newId('token'),
    accountId: ctx.accountId,
    customerId: input.customerId ?? null,
    tokenType: input.tokenType,
    label: input.label ? input.label : null,
    holder: input.card.holder,
    panEnc: cipher.encrypt(number),
    brand: cardBrandOf(number),
    last4: number.slice(-4),
    expiry: input.card.expiry,
    billingAddress: billingAddressOf(input.billingAddress),
    createdAt: now,
    updatedAt: now,
  });
  ctx.log.info({ tokenId: token.id, customerId: token.customerId, brand: token.brand }, 'card vaulted');
  return token;
}

/** GET /tokens/{id}: 404 when it does not exist, 403 when it is another account's. */
export async function getToken({ ctx, input }: { ctx: ServiceContext; input: { id: string } }): Promise<Token> {
  const token = isId('token', input.id) ? await findToken(ctx.db, input.id) : undefined;
  return ownedBy(token, ctx, 'token', input.id);
}

/** GET /tokens: the account's tokens, newest first; `customerId` must be a customer of the account. */
export async function listAccountTokens({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: PageQuery & { customerId?: string };
}): Promise<{ rows: Token[]; total: number; travel?: Travel }> {
  const customerId = input.customerId === '' ? undefined : input.customerId;
  if (customerId !== undefined) {
    const customer = isId('customer', customerId) ? await findCustomer(ctx.db, customerId) : undefined;
    ownedBy(customer, ctx, 'customer', customerId, { parameter: 'customerId', notFoundStatus: 400 });
  }
  const keyset = await keysetOf(input, (id) => tokenPlace(ctx.db, ctx.accountId, id));
  return listTokens(ctx.db, { accountId: ctx.accountId, customerId, limit: input.limit, offset: input.offset, keyset });
}
