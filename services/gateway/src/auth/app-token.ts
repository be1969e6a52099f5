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

/** Verifies signature and expiry against real time (never the sandbox clock). */
export function verifyAppToken(keys: SigningKeys, token: string, nowMs: number): TokenCheck {
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
  if (claims.exp * 1000 <= nowMs) return { ok: false, reason: 'expired' };
  return { ok: true, claims };
}
