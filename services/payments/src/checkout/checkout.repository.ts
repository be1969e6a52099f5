import { type DbOrTx, schema } from '@pps/shared/db';
import { eq } from 'drizzle-orm';

const { checkoutSessions } = schema;

export type CheckoutSession = schema.CheckoutSession;

export async function insertCheckoutSession(db: DbOrTx, values: schema.NewCheckoutSession): Promise<CheckoutSession> {
  const [row] = await db.insert(checkoutSessions).values(values).returning();
  if (!row) throw new Error('checkout session insert returned no row');
  return row;
}

export async function findCheckoutSession(db: DbOrTx, id: string): Promise<CheckoutSession | undefined> {
  const [row] = await db.select().from(checkoutSessions).where(eq(checkoutSessions.id, id));
  return row;
}

/** The session, locked until the end of the transaction: the card POSTs of one session run one at a time. */
export async function lockCheckoutSession(db: DbOrTx, id: string): Promise<CheckoutSession | undefined> {
  const [row] = await db.select().from(checkoutSessions).where(eq(checkoutSessions.id, id)).for('update');
  return row;
}

export async function addCheckoutToken(db: DbOrTx, session: CheckoutSession, tokenId: string, now: Date) {
  await db
    .update(checkoutSessions)
    .set({ tokenIds: [...session.tokenIds, tokenId], updatedAt: now })
    .where(eq(checkoutSessions.id, session.id));
}
