import { type DbOrTx, type Keyset, keysetPage, keysetRead, placeIn, schema, type Travel } from '@pps/shared/db';
import { and, count, eq } from 'drizzle-orm';

const { customers, merchants } = schema;

export type Customer = schema.Customer;
export type NewCustomer = schema.NewCustomer;

export async function insertCustomer(db: DbOrTx, values: NewCustomer): Promise<Customer> {
  const [row] = await db.insert(customers).values(values).returning();
  if (!row) throw new Error('customer insert returned no row');
  return row;
}

export async function findCustomer(db: DbOrTx, id: string): Promise<Customer | undefined> {
  const [row] = await db.select().from(customers).where(eq(customers.id, id));
  return row;
}

/** A customer's place in the account's list, for a cursor; undefined when it is no customer of the account's. */
export const customerPlace = (db: DbOrTx, accountId: string, id: string) =>
  placeIn(db, customers, id, eq(customers.accountId, accountId));

export async function listCustomers(
  db: DbOrTx,
  filter: {
    accountId: string;
    externalId?: string;
    merchantId?: string;
    limit: number;
    offset: number;
    keyset?: Keyset;
  },
): Promise<{ rows: Customer[]; total: number; travel?: Travel }> {
  const where = and(
    eq(customers.accountId, filter.accountId),
    filter.externalId === undefined ? undefined : eq(customers.externalId, filter.externalId),
    filter.merchantId === undefined ? undefined : eq(customers.merchantId, filter.merchantId),
  );
  const read = keysetRead(customers, filter.keyset, filter.limit);
  const [rows, [counted]] = await Promise.all([
    db
      .select()
      .from(customers)
      .where(and(where, read.where))
      .orderBy(...read.orderBy)
      .limit(read.limit)
      .offset(filter.offset),
    db.select({ total: count() }).from(customers).where(where),
  ]);
  return { ...keysetPage(rows, filter.limit, filter.keyset), total: counted?.total ?? 0 };
}

/** The owner of a merchant (the merchants service owns the table; we only read it). */
export async function findMerchantOwner(
  db: DbOrTx,
  id: string,
): Promise<{ id: string; accountId: string } | undefined> {
  const [row] = await db
    .select({ id: merchants.id, accountId: merchants.accountId })
    .from(merchants)
    .where(eq(merchants.id, id));
  return row;
}
