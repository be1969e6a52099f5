import { absoluteUrl, single } from '@pps/shared/http';
import type { CheckoutSession } from './checkout.repository';

/** `open` while it may vault cards; `complete` once it made `maxTokens`; `expired` after `expiresAt` (real time). */
export const checkoutSessionStatus = (session: CheckoutSession, now: Date) =>
  now.getTime() >= session.expiresAt.getTime()
    ? ('expired' as const)
    : session.tokenIds.length >= session.maxTokens
      ? ('complete' as const)
      : ('open' as const);

/** The session as the platform sees it; the client secret only in the answer that created it. */
export const checkoutSessionResource = (session: CheckoutSession, now: Date, clientSecret?: string) => ({
  type: 'checkoutSessions' as const,
  id: session.id,
  attributes: {
    status: checkoutSessionStatus(session, now),
    allowedOrigins: session.allowedOrigins,
    customerId: session.customerId,
    merchantId: session.merchantId,
    maxTokens: session.maxTokens,
    tokenIds: session.tokenIds,
    expiresAt: session.expiresAt.toISOString(),
    createdAt: session.createdAt.toISOString(),
    ...(clientSecret ? { clientSecret } : {}),
  },
});

export const checkoutSessionDocument = (baseUrl: string, session: CheckoutSession, now: Date, clientSecret?: string) =>
  single(absoluteUrl(baseUrl, `/checkout/sessions/${session.id}`), checkoutSessionResource(session, now, clientSecret));
