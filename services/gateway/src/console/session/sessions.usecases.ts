import { randomSecret, safeEqual, sha256Hex } from '@pps/shared/crypto';
import { ApiError } from '@pps/shared/http';
import { findAccountByApiKeyHash } from '../../auth/auth.repository';
import type { GatewayContext } from '../../deps';
import { deleteIdleSessions, deleteSession, findSession, insertSession, touchSession } from './sessions.repository';

/** A session ends 12 hours after its last request. */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
/** Its last-seen time is written at most once a minute: a page view is not a write. */
const TOUCH_EVERY_MS = 60_000;

/** Who a console request acts for: an account (its pages), or the operator (every account, the platform's health). */
export type Viewer =
  | {
      kind: 'account';
      sessionId: string;
      csrfToken: string;
      account: { id: string; name: string; clockOffsetSeconds: number; apiVersion: string };
    }
  | { kind: 'operator'; sessionId: string; csrfToken: string };

const notAccepted = () =>
  new ApiError({
    status: 401,
    code: 'invalid_credentials',
    detail: 'That key was not accepted: paste an API key (sk_test_…) of an active account, or the admin token',
  });

/**
 * Signs in with an account's API key, or with the admin token as the operator: a new session whose cookie value is
 * returned once (only its hash is kept). A key that is no active account's is a 401, which the gateway's limit on
 * failed authentications counts per address.
 */
export async function signIn({ ctx, credential }: { ctx: GatewayContext; credential: string }) {
  const now = ctx.clock.now();
  const credentialHash = sha256Hex(credential);
  let accountId: string | null = null;
  if (!safeEqual(credential, ctx.config.ADMIN_TOKEN)) {
    const account = credential ? await findAccountByApiKeyHash(ctx.db, credentialHash) : undefined;
    if (account?.status !== 'active') throw notAccepted();
    accountId = account.id;
  }
  const cookie = randomSecret('cs_console_');
  const csrfToken = randomSecret('', 24);
  await deleteIdleSessions(ctx.db, new Date(now.getTime() - SESSION_IDLE_MS));
  await insertSession(ctx.db, {
    id: sha256Hex(cookie),
    accountId,
    credentialHash,
    csrfToken,
    createdAt: now,
    lastSeenAt: now,
  });
  return { cookie };
}

/**
 * The viewer of a request's cookie, or undefined when the session is unknown, idle for 12 hours, signed out, or its
 * credential is no longer good: the account's API key changed or the account was disabled (an operator's: the admin
 * token changed). A session found over is deleted.
 */
export async function viewerOf({ ctx, cookie }: { ctx: GatewayContext; cookie: string | undefined }) {
  if (!cookie) return undefined;
  const id = sha256Hex(cookie);
  const session = await findSession(ctx.db, id);
  if (!session) return undefined;
  const now = ctx.clock.now().getTime();
  const account = session.account;
  const over =
    now - session.lastSeenAt.getTime() > SESSION_IDLE_MS ||
    (session.accountId === null
      ? session.credentialHash !== sha256Hex(ctx.config.ADMIN_TOKEN)
      : account?.status !== 'active' || account.apiKeyHash !== session.credentialHash);
  if (over) {
    await deleteSession(ctx.db, id);
    return undefined;
  }
  if (now - session.lastSeenAt.getTime() > TOUCH_EVERY_MS) await touchSession(ctx.db, id, new Date(now));
  const base = { sessionId: id, csrfToken: session.csrfToken };
  if (!account) return { kind: 'operator', ...base } satisfies Viewer;
  return {
    kind: 'account',
    ...base,
    account: {
      id: account.id,
      name: account.name,
      clockOffsetSeconds: account.clockOffsetSeconds,
      apiVersion: account.apiVersion,
    },
  } satisfies Viewer;
}

export const signOut = ({ ctx, sessionId }: { ctx: GatewayContext; sessionId: string }) =>
  deleteSession(ctx.db, sessionId);
