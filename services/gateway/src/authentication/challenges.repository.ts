import { type DbOrTx, schema } from '@pps/shared/db';
import { eq } from 'drizzle-orm';

const { accounts, paymentChallenges, payments } = schema;

/** What the challenge page needs of an open challenge (the payments service owns the tables): read, never written. */
export type OpenChallenge = {
  paymentId: string;
  accountId: string;
  expiresAt: Date;
  amount: number;
  currency: string;
  card: schema.CardSnapshot | null;
  returnUrl: string | null;
  accountStatus: 'active' | 'disabled';
  clockOffsetSeconds: number;
};

/** The open challenge of a token, with its payment's figures and its account's clock; undefined when none is. */
export async function findOpenChallenge(db: DbOrTx, token: string): Promise<OpenChallenge | undefined> {
  const [row] = await db
    .select({
      paymentId: paymentChallenges.paymentId,
      accountId: paymentChallenges.accountId,
      expiresAt: paymentChallenges.expiresAt,
      amount: payments.amount,
      currency: payments.currency,
      card: payments.card,
      authentication: payments.authentication,
      accountStatus: accounts.status,
      clockOffsetSeconds: accounts.clockOffsetSeconds,
    })
    .from(paymentChallenges)
    .innerJoin(payments, eq(payments.id, paymentChallenges.paymentId))
    .innerJoin(accounts, eq(accounts.id, paymentChallenges.accountId))
    .where(eq(paymentChallenges.token, token));
  if (!row) return undefined;
  const { authentication, ...challenge } = row;
  return { ...challenge, returnUrl: authentication?.returnUrl ?? null };
}
