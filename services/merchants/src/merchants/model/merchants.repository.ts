import {
  countedLists,
  type DbOrTx,
  isUniqueViolation,
  type Keyset,
  keptCount,
  keysetPage,
  keysetRead,
  placeIn,
  schema,
  type Travel,
} from '@pps/shared/db';
import { and, eq, or } from 'drizzle-orm';
import { type DuplicateField, duplicateMerchant } from './merchants.errors';

const { merchants } = schema;

export type MerchantRow = schema.Merchant;
export type NewMerchantRow = schema.NewMerchant;

export async function findMerchant(db: DbOrTx, id: string): Promise<MerchantRow | undefined> {
  const [row] = await db.select().from(merchants).where(eq(merchants.id, id));
  return row;
}

/** The merchant's row, locked until the transaction ends: serialises every change of one merchant. */
export async function lockMerchant(tx: DbOrTx, id: string): Promise<MerchantRow | undefined> {
  const [row] = await tx.select().from(merchants).where(eq(merchants.id, id)).for('update');
  return row;
}

/** Which of the email and tax id indexes another merchant of the account already uses. */
export async function findDuplicates(
  db: DbOrTx,
  input: { accountId: string; emailIndex: string; taxIdIndex: string; taxIdField: 'ssn' | 'ein' },
): Promise<DuplicateField[]> {
  const rows = await db
    .select({ emailIndex: merchants.emailIndex, taxIdIndex: merchants.taxIdIndex })
    .from(merchants)
    .where(
      and(
        eq(merchants.accountId, input.accountId),
        or(eq(merchants.emailIndex, input.emailIndex), eq(merchants.taxIdIndex, input.taxIdIndex)),
      ),
    );
  const fields: DuplicateField[] = [];
  if (rows.some((row) => row.emailIndex === input.emailIndex)) fields.push('email');
  if (rows.some((row) => row.taxIdIndex === input.taxIdIndex)) fields.push(input.taxIdField);
  return fields;
}

/** Inserts a merchant; a unique violation (a concurrent duplicate) becomes the 409 with its pointer. */
export async function insertMerchant(tx: DbOrTx, row: NewMerchantRow, taxIdField: 'ssn' | 'ein'): Promise<MerchantRow> {
  try {
    const [inserted] = await tx.insert(merchants).values(row).returning();
    return inserted!;
  } catch (error) {
    if (isUniqueViolation(error, 'merchants_account_email_uq')) throw duplicateMerchant(['email']);
    if (isUniqueViolation(error, 'merchants_account_tax_id_uq')) throw duplicateMerchant([taxIdField]);
    throw error;
  }
}

export async function updateMerchantRow(
  tx: DbOrTx,
  id: string,
  changes: Partial<Pick<MerchantRow, 'status' | 'statusReason' | 'avsMode' | 'features' | 'updatedAt'>>,
): Promise<MerchantRow> {
  const [row] = await tx.update(merchants).set(changes).where(eq(merchants.id, id)).returning();
  return row!;
}

/** A page of the account's merchants, newest first (ties broken by the time-ordered id). */
/** A merchant's place in the account's list, for a cursor; undefined when it is no merchant of the account's. */
export const merchantPlace = (db: DbOrTx, accountId: string, id: string) =>
  placeIn(db, merchants, id, eq(merchants.accountId, accountId));

export async function listMerchantRows(
  db: DbOrTx,
  query: { accountId: string; status?: schema.MerchantStatus; limit: number; offset: number; keyset?: Keyset },
): Promise<{ rows: MerchantRow[]; total: number; travel?: Travel }> {
  const read = keysetRead(merchants, query.keyset, query.limit);
  const where = and(
    eq(merchants.accountId, query.accountId),
    query.status ? eq(merchants.status, query.status) : undefined,
    read.where,
  );
  const [rows, total] = await Promise.all([
    db
      .select()
      .from(merchants)
      .where(where)
      .orderBy(...read.orderBy)
      .limit(read.limit)
      .offset(query.offset),
    keptCount(db, {
      list: countedLists.merchants,
      scope: query.accountId,
      buckets: query.status ? [query.status] : undefined,
    }),
  ]);
  return { ...keysetPage(rows, query.limit, query.keyset), total };
}
