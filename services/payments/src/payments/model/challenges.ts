import { randomBytes } from 'node:crypto';
import type { Config } from '@pps/shared/config';
import { type DbOrTx, type Part, schema, texts } from '@pps/shared/db';
import { and, eq, sql } from 'drizzle-orm';

const { paymentChallenges } = schema;

/** The 3-D Secure protocol version the sandbox's directory speaks. */
export const THREE_DS_VERSION = '2.2.0';
/** How long a challenge waits for its cardholder, by the account's clock (docs/api.md, 3-D Secure). */
export const CHALLENGE_MINUTES = 15;

/** A challenge to open with its payment's outcome: its single-use token, when it lapses, and the page's origin. */
export type NewChallenge = {
  paymentId: string;
  accountId: string;
  token: string;
  expiresAt: Date;
  baseUrl: string;
};

/**
 * A payment's challenge: a random single-use token (`tds_…`, a prefix the request log redacts by), lapsing
 * CHALLENGE_MINUTES after the payment was made, by the account's clock (the payment's `createdAt` is by it).
 */
export const newChallenge = (
  config: Pick<Config, 'PUBLIC_BASE_URL'>,
  payment: { id: string; accountId: string; createdAt: Date },
): NewChallenge => ({
  paymentId: payment.id,
  accountId: payment.accountId,
  token: `tds_${randomBytes(24).toString('base64url')}`,
  expiresAt: new Date(payment.createdAt.getTime() + CHALLENGE_MINUTES * 60_000),
  baseUrl: config.PUBLIC_BASE_URL,
});

/** The hosted challenge page of a token, on the gateway's public origin: the token in the query, which no log keeps. */
export const challengeUrl = (baseUrl: string, token: string) => `${baseUrl}/3ds/challenge?token=${token}`;

const INSERT_CHALLENGES = `insert into payment_challenges (payment_id, account_id, token, expires_at)
  select c.payment_id, c.account_id, c.token, c.expires_at::timestamptz
  from unnest($1::text[], $2::text[], $3::text[], $4::text[]) as c(payment_id, account_id, token, expires_at)`;

/** New payments' challenges, as one write among their outcome's (phase 3, or recovery). */
export const challengesInsertPart = (challenges: NewChallenge[]): Part => ({
  text: INSERT_CHALLENGES,
  params: [
    texts(challenges.map((challenge) => challenge.paymentId)),
    texts(challenges.map((challenge) => challenge.accountId)),
    texts(challenges.map((challenge) => challenge.token)),
    texts(challenges.map((challenge) => challenge.expiresAt.toISOString())),
  ],
});

/**
 * Takes a payment's open challenge by its token: deleted, so its link works once, and returned; undefined when the
 * token is not this payment's open challenge (answered, abandoned, or never).
 */
export async function takeChallenge(tx: DbOrTx, paymentId: string, token: string) {
  const [taken] = await tx
    .delete(paymentChallenges)
    .where(and(eq(paymentChallenges.paymentId, paymentId), eq(paymentChallenges.token, token)))
    .returning();
  return taken;
}

/**
 * Claims up to `limit` challenges that the clock has passed (`expiresAt ≤` it), oldest first, deleted as they are
 * claimed, with `SKIP LOCKED`, as the settle run claims what is due: one a cardholder is answering is left to them,
 * and two workers never take the same one. For one account by its clock, or every account by the real clock (which
 * no account's is behind).
 */
export async function claimLapsedChallenges(
  tx: DbOrTx,
  input: { clock: Date; limit: number; accountId?: string },
): Promise<{ paymentId: string; accountId: string }[]> {
  const rows = await tx.execute<{ payment_id: string; account_id: string }>(sql`
    delete from payment_challenges where payment_id in (
      select payment_id from payment_challenges
      where ${input.accountId ? sql`account_id = ${input.accountId} and` : sql``}
        expires_at <= ${input.clock.toISOString()}::timestamptz
      order by expires_at, payment_id
      limit ${input.limit}
      for update skip locked
    )
    returning payment_id, account_id`);
  return rows.map((row) => ({ paymentId: row.payment_id, accountId: row.account_id }));
}
