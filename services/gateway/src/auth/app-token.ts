import { createHmac, randomBytes } from 'node:crypto';
import { safeEqual } from '@pps/shared/crypto';

export type AppTokenClaims = {
  /** The app id. */
  sub: string;
  /** The account id. */
  acc: string;
  /** Version of the app key the token was minted from; a newer key revokes it. */
  ver: number;
  iat: number;
  exp: number;
  jti: string;
};

export type SigningKeys = { id: string; secret: Buffer }[];

const b64 = (value: string | Buffer) => Buffer.from(value).toString('base64url');
const sign = (secret: Buffer, input: string) => createHmac('sha256', secret).update(input).digest('base64url');

/** An HS256 JWT signed with the first (active) key; `kid` names it so older keys still verify. */
export function signAppToken(keys: SigningKeys, claims: Omit<AppTokenClaims, 'jti'>): string {
  const key = keys[0]!;
  const header = b64(JSON.stringify({ alg: 'HS256', typ: 'JWT', kid: key.id }));
  const payload = b64(JSON.stringify({ ...claims, jti: randomBytes(12).toString('base64url') }));
  return `${header}.${payload}.${sign(key.secret, `${header}.${payload}`)}`;
}

export type TokenCheck =
  | { ok: true; claims: AppTokenClaims }
  | { ok: false; reason: 'malformed' | 'bad_signature' | 'expired' };

/**
 * Tokens whose signature this process has verified, by key ring: every authenticated request presents its token
 * again for an hour, and checking it anew (two base64 decodes, two JSON parses and an HMAC) was about 3 % of a
 * request's CPU. The key is the token's whole text, so a changed byte is a miss; expiry is checked on every hit.
 */
const verifiedTokens = new WeakMap<SigningKeys, Map<string, AppTokenClaims>>();
const MAX_VERIFIED_TOKENS = 10_000;

/** Verifies signature and expiry against real time (never the sandbox clock); a signature once per token. */
export function verifyAppToken(keys: SigningKeys, token: string, nowMs: number): TokenCheck {
  let verified = verifiedTokens.get(keys);
  if (!verified) {
    verified = new Map();
    verifiedTokens.set(keys, verified);
  }
  const known = verified.get(token);
  const check: TokenCheck = known ? { ok: true, claims: known } : checkAppToken(keys, token);
  if (!check.ok) return check;
  if (!known) {
    if (verified.size >= MAX_VERIFIED_TOKENS) verified.clear();
    verified.set(token, check.claims);
  }
  if (check.claims.exp * 1000 <= nowMs) return { ok: false, reason: 'expired' };
  return check;
}

/** The token's signature and claims' shape, checked. */
function checkAppToken(keys: SigningKeys, token: string): TokenCheck {
  const parts = token.split('.');
  if (parts.length !== 3) return { ok: false, reason: 'malformed' };
  const [header, payload, signature] = parts as [string, string, string];
  let parsedHeader: { alg?: string; kid?: string };
  let claims: AppTokenClaims;
  try {
    parsedHeader = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  const key = keys.find((candidate) => candidate.id === parsedHeader.kid);
  if (parsedHeader.alg !== 'HS256' || !key) return { ok: false, reason: 'bad_signature' };
  if (!safeEqual(signature, sign(key.secret, `${header}.${payload}`))) return { ok: false, reason: 'bad_signature' };
  if (
    typeof claims.sub !== 'string' ||
    typeof claims.acc !== 'string' ||
    typeof claims.ver !== 'number' ||
    typeof claims.exp !== 'number'
  ) {
    return { ok: false, reason: 'malformed' };
  }
  return { ok: true, claims };
}
