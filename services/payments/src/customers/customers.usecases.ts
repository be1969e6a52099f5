import type { CustomerInput } from '@pps/shared/contract';
import type { Travel } from '@pps/shared/db';
import { keysetOf, ownedBy, type PageQuery, type ServiceContext } from '@pps/shared/http';
import { isId, newId } from '@pps/shared/ids';
import {
  type Customer,
  customerPlace,
  findCustomer,
  findMerchantOwner,
  insertCustomer,
  listCustomers,
} from './customers.repository';

const MERCHANT_POINTER = '/data/attributes/merchantId';

/** POST /customers. `merchantId`, when given, must be a merchant of the caller's account (any status). */
export async function createCustomer({ ctx, input }: { ctx: ServiceContext; input: CustomerInput }): Promise<Customer> {
  if (input.merchantId !== undefined) {
    const merchant = await findMerchantOwner(ctx.db, input.merchantId);
    ownedBy(merchant, ctx, 'merchant', input.merchantId, { pointer: MERCHANT_POINTER, notFoundStatus: 400 });
  }
  const now = ctx.clock.now();
  const customer = await insertCustomer(ctx.db, {
    id: newId('customer'),
    accountId: ctx.accountId,
    name: input.name,
    email: input.email ?? null,
    phone: input.phone ?? null,
    externalId: input.externalId ?? null,
    merchantId: input.merchantId ?? null,
    createdAt: now,
    updatedAt: now,
  });
  ctx.log.info({ customerId: customer.id, merchantId: customer.merchantId }, 'customer created');
  return customer;
}

/** GET /customers/{id}: 404 when it does not exist, 403 when it is another account's. */
export async function getCustomer({ ctx, input }: { ctx: ServiceContext; input: { id: string } }): Promise<Customer> {
  const customer = isId('customer', input.id) ? await findCustomer(ctx.db, input.id) : undefined;
  return ownedBy(customer, ctx, 'customer', input.id);
}

/** GET /customers: newest first, filtered by `externalId` and `merchantId` (a merchant of the account). */
export async function listAccountCustomers({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: PageQuery & { externalId?: string; merchantId?: string };
}): Promise<{ rows: Customer[]; total: number; travel?: Travel }> {
  const externalId = input.externalId === '' ? undefined : input.externalId;
  const merchantId = input.merchantId === '' ? undefined : input.merchantId;
  if (merchantId !== undefined) {
    const merchant = await findMerchantOwner(ctx.db, merchantId);
    ownedBy(merchant, ctx, 'merchant', merchantId, { parameter: 'merchantId', notFoundStatus: 400 });
  }
  const keyset = await keysetOf(input, (id) => customerPlace(ctx.db, ctx.accountId, id));
  return listCustomers(ctx.db, {
    accountId: ctx.accountId,
    externalId,
    merchantId,
    limit: input.limit,
    offset: input.offset,
    keyset,
  });
}
