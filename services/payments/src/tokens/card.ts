export { type CardBrand, cardBrandOf, luhnValid, normalizeCardNumber } from '@pps/shared/contract';

const EXPIRY = /^(0[1-9]|1[0-2])(\d{2})$/;

/**
 * The first instant a card of expiry MMYY is no longer valid: a card is good through the end of its expiry
 * month, so this is midnight UTC at the start of the next month. Null when the expiry is not MMYY.
 */
export function cardExpiresAt(expiry: string): Date | null {
  const match = EXPIRY.exec(expiry);
  if (!match) return null;
  const month = Number(match[1]);
  const year = 2000 + Number(match[2]);
  // Date.UTC rolls month 12 over into January of the next year.
  return new Date(Date.UTC(year, month, 1));
}

/** True when the card is past its expiry month at `now`, or the expiry is not MMYY. */
export function isCardExpired(expiry: string, now: Date): boolean {
  const expiresAt = cardExpiresAt(expiry);
  return expiresAt === null || now.getTime() >= expiresAt.getTime();
}
