import { type DbOrTx, schema } from '@pps/shared/db';
import { eq } from 'drizzle-orm';

const { checkoutSessions, accounts } = schema;

/** What the gateway needs of a session (the payments service owns the table): the form's origins, the secret's hash. */
export type GatewaySession = {
  id: string;
  accountId: string;
  clientSecretHash: string;
  allowedOrigins: string[];
  expiresAt: Date;
  maxTokens: number;
  tokensMade: number;
  accountStatus: 'active' | 'disabled';
  clockOffsetSeconds: number;
};

export async function findGatewaySession(db: DbOrTx, id: string): Promise<GatewaySession | undefined> {
  const [row] = await db
    .select({
      id: checkoutSessions.id,
      accountId: checkoutSessions.accountId,
      clientSecretHash: checkoutSessions.clientSecretHash,
      allowedOrigins: checkoutSessions.allowedOrigins,
      expiresAt: checkoutSessions.expiresAt,
      maxTokens: checkoutSessions.maxTokens,
      tokenIds: checkoutSessions.tokenIds,
      accountStatus: accounts.status,
      clockOffsetSeconds: accounts.clockOffsetSeconds,
    })
    .from(checkoutSessions)
    .innerJoin(accounts, eq(accounts.id, checkoutSessions.accountId))
    .where(eq(checkoutSessions.id, id));
  if (!row) return undefined;
  const { tokenIds, ...rest } = row;
  return { ...rest, tokensMade: tokenIds.length };
}
