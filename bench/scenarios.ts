import { randomUUID } from 'node:crypto';
import type { Request } from 'autocannon';
import { personalMerchantAttributes } from '../test/fixtures/merchants';

export type Scenario = {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** A sequence per connection (e.g. a fresh idempotency key per request via setupRequest). */
  requests?: Request[];
};

type Credentials = { headers: Record<string, string> };

async function post(base: string, path: string, credentials: Credentials, body: unknown) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { ...credentials.headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const document = await response.json();
  if (!response.ok) throw new Error(`${path} failed: ${JSON.stringify(document)}`);
  return document.data.id as string;
}

/** The benchmarks; the first is the baseline the others are compared with. */
export async function scenarios(base: string, credentials: Credentials): Promise<Scenario[]> {
  const merchantId = await post(base, '/merchants', credentials, {
    data: { type: 'merchants', attributes: personalMerchantAttributes() },
  });
  const tokenId = await post(base, '/tokens', credentials, {
    data: {
      type: 'tokens',
      attributes: {
        tokenType: 'card',
        card: { holder: 'Bench Buyer', number: '4111111111111111', expiry: '1239', code: '123' },
      },
    },
  });
  const payment = (requestId?: string) =>
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
  const json = { ...credentials.headers, 'content-type': 'application/json' };
  const replayed = payment(randomUUID());
  await fetch(`${base}/payments`, { method: 'POST', headers: json, body: replayed });
  const paymentId = await post(base, '/payments', credentials, JSON.parse(payment()));

  return [
    { name: 'GET /healthz (no auth, baseline)', method: 'GET', path: '/healthz' },
    { name: 'GET /auth/token (four-header check)', method: 'GET', path: '/auth/token', headers: credentials.headers },
    {
      name: 'GET /payments/{id} (auth + forward + read)',
      method: 'GET',
      path: `/payments/${paymentId}`,
      headers: credentials.headers,
    },
    { name: 'POST /payments tokenv3 (new payment)', method: 'POST', path: '/payments', headers: json, body: payment() },
    {
      name: 'POST /payments tokenv3 (fresh requestId each)',
      method: 'POST',
      path: '/payments',
      headers: json,
      requests: [
        { method: 'POST', path: '/payments', setupRequest: (request) => ({ ...request, body: payment(randomUUID()) }) },
      ],
    },
    { name: 'POST /payments (idempotent replay)', method: 'POST', path: '/payments', headers: json, body: replayed },
  ];
}
