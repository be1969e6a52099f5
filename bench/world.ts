import { randomUUID } from 'node:crypto';
import { personalMerchantAttributes } from '@pps/shared/testing';

export type Credentials = { headers: Record<string, string>; apiKey: string; appKey: string };

export type World = {
  credentials: Credentials;
  paymentId: string;
  /** A tokenv3 payment body paying the bench merchant with the bench card. */
  paymentBody: (requestId?: string) => string;
  /** The same payment authorized only (`capture: false`), to be captured later. */
  authorizationBody: (requestId?: string) => string;
  /** A body whose requestId has been used once: posting it again is a replay. */
  replayedBody: string;
};

async function call(base: string, path: string, headers: Record<string, string>, body: unknown) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const document = await response.json();
  if (!response.ok) throw new Error(`${path} failed: ${JSON.stringify(document)}`);
  return document.data;
}

/** Through the public API: an account and its credentials, a merchant, a card token and one payment. */
export async function prepareWorld(base: string, adminToken: string): Promise<World> {
  const admin = { authorization: `Bearer ${adminToken}` };
  const account = await call(base, '/admin/accounts', admin, {
    data: { type: 'accounts', attributes: { name: `bench ${Date.now()}` } },
  });
  const { apiKey, appId } = account.attributes;
  const { appKey } = (
    await call(base, '/auth/key', { 'x-api-key': apiKey }, { data: { type: 'auth', attributes: { appId } } })
  ).attributes;
  const { appToken } = (
    await call(base, '/auth/token', { 'x-api-key': apiKey }, { data: { type: 'auth', attributes: { appKey } } })
  ).attributes;
  const headers = { authorization: `Bearer ${appToken}`, 'x-api-key': apiKey, appid: appId };
  const merchantId = (
    await call(base, '/merchants', headers, { data: { type: 'merchants', attributes: personalMerchantAttributes() } })
  ).id;
  const tokenId = (
    await call(base, '/tokens', headers, {
      data: {
        type: 'tokens',
        attributes: {
          tokenType: 'card',
          card: { holder: 'Bench Buyer', number: '4111111111111111', expiry: '1239', code: '123' },
        },
      },
    })
  ).id;
  const paymentBody = (requestId?: string) =>
    JSON.stringify({
      data: {
        ...(requestId ? { requestId } : {}),
        type: 'payments',
        attributes: {
          paymentType: 'tokenv3',
          merchantId,
          token: { tokenId, holder: 'Bench Buyer', expiry: '1239', useAVS: true },
          transaction: { amount: '1999', currency: 'USD', invoice: 'BENCH' },
          billingAddress: { line1: '1 Main St', zip: '94105', country: 'USA' },
        },
      },
    });
  const authorizationBody = (requestId?: string) => {
    const body = JSON.parse(paymentBody(requestId));
    body.data.attributes.capture = false;
    return JSON.stringify(body);
  };
  const replayedBody = paymentBody(randomUUID());
  const paymentId = (await call(base, '/payments', headers, JSON.parse(replayedBody))).id;
  return { credentials: { headers, apiKey, appKey }, paymentId, paymentBody, authorizationBody, replayedBody };
}
