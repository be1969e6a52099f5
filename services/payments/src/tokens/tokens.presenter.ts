import { absoluteUrl, single } from '@pps/shared/http';
import type { Token } from './tokens.repository';

/** The token as clients see it: brand, last four, expiry and holder, never the number or the security code. */
export const tokenResource = (token: Token) => ({
  type: 'tokens' as const,
  id: token.id,
  attributes: {
    tokenType: token.tokenType,
    label: token.label,
    customerId: token.customerId,
    card: { brand: token.brand, last4: token.last4, expiry: token.expiry, holder: token.holder },
    billingAddress: token.billingAddress ?? null,
    createdAt: token.createdAt.toISOString(),
  },
});

export const tokenDocument = (baseUrl: string, token: Token) =>
  single(absoluteUrl(baseUrl, `/tokens/${token.id}`), tokenResource(token));
