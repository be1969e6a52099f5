import { type DbOrTx, schema } from '@pps/shared/db';
import { and, count, desc, eq } from 'drizzle-orm';

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

export async function listCustomers(
  db: DbOrTx,
  filter: { accountId: string; externalId?: string; merchantId?: string; limit: number; offset: number },
): Promise<{ rows: Customer[]; total: number }> {
  const where = and(
    eq(customers.accountId, filter.accountId),
    filter.externalId === undefined ? undefined : eq(customers.externalId, filter.externalId),
    filter.merchantId === undefined ? undefined : eq(customers.merchantId, filter.merchantId),
  );
  const [rows, [counted]] = await Promise.all([
    db
      .select()
      .from(customers)
      .where(where)
      .orderBy(desc(customers.createdAt), desc(customers.id))
      .limit(filter.limit)
      .offset(filter.offset),
    db.select({ total: count() }).from(customers).where(where),
  ]);
  return { rows, total: counted?.total ?? 0 };
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
