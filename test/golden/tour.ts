import { createDataCipher, runDisputes, SandboxProcessor } from '@pps/payments';
import { runSettlementPass } from '@pps/settlement';
import { createLogger } from '@pps/shared/logger';
import { personalMerchantAttributes } from '@pps/shared/testing';
import { achBody, billingAddress } from '../fixtures/payments';
import type { TestStack } from '../harness';

/** One exchange of the tour: what was sent and what came back (bodies parsed when JSON). */
export type Exchange = {
  request: { method: string; path: string; body?: unknown };
  response: { status: number; body: unknown };
};

const CARDS = { visa: '4242424242424242', chargeback: '4000000000000259', challenge: '4000002760003184' };
const EXPIRY = '1234';
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/**
 * The golden tour: every operation of the API, called once or more in an order that gives each something real to
 * answer (a merchant, payments of each kind, a settled day, a dispute, a payout, webhooks and their events, the
 * request log), every request in `version` (`PPS-Version`), every value the tour chooses fixed. Work the platform does
 * by itself (settling, opening disputes, paying out) is run here in between, as the workers run it, so nothing races.
 */
export async function tour(stack: TestStack, version: string): Promise<Exchange[]> {
  const exchanges: Exchange[] = [];
  let headers: Record<string, string> = {};

  async function call(method: string, path: string, body?: unknown, extra: Record<string, string> = {}) {
    const response = await stack.call(method, path, {
      body,
      headers: { ...headers, 'PPS-Version': version, ...extra },
    });
    if (process.env.GOLDEN_DEBUG)
      console.log(method, path, response.status, JSON.stringify(response.body).slice(0, 300));
    exchanges.push({
      request: { method, path, ...(body === undefined ? {} : { body }) },
      response: { status: response.status, body: response.body ?? null },
    });
    return response;
  }
  const admin = (method: string, path: string, body?: unknown) => call(method, path, body, stack.admin);
  const resource = (type: string, attributes: Record<string, unknown>, requestId?: string) => ({
    data: { type, ...(requestId ? { requestId } : {}), attributes },
  });

  // Versions, the account and its credentials.
  await call('GET', '/versions');
  const account = (await admin('POST', '/admin/accounts', resource('accounts', { name: 'Golden Platform' }))).body.data;
  await admin('PUT', `/admin/accounts/${account.id}`, resource('accounts', { status: 'active' }));
  const { apiKey, appId } = account.attributes;
  const keyed = { 'x-api-key': apiKey };
  const appKey = (await call('POST', '/auth/key', resource('auth', { appId }), keyed)).body.data.attributes.appKey;
  const token = (await call('POST', '/auth/token', resource('auth', { appKey }), keyed)).body.data.attributes;
  await call('GET', '/auth/token', undefined, { ...keyed, appid: appId, authorization: `Bearer ${token.appToken}` });
  headers = { authorization: `Bearer ${token.appToken}`, 'x-api-key': apiKey, appid: appId };
  await call('GET', '/auth');
  await call('GET', '/sandbox/clock');

  // A merchant, and everything an account changes of one.
  const merchantAttributes = personalMerchantAttributes({
    personalInfo: {
      ...personalMerchantAttributes().personalInfo,
      email: 'jane@example.com',
      socialSecurity: '123456789',
    },
  });
  const merchant = (await call('POST', '/merchants', resource('merchants', merchantAttributes))).body.data.id;
  await call('GET', '/merchants?limit=10');
  await call('GET', `/merchants/${merchant}`);
  await call('PUT', `/merchants/${merchant}`, resource('merchants', { group: 'AVS', AVS: 'Strict' }));
  await call(
    'PUT',
    `/merchants/${merchant}/bankInfo`,
    resource('merchants', { bankInfo: merchantAttributes.bankInfo }),
  );
  await call('PUT', `/merchants/${merchant}/avsMode`, resource('merchants', { AVS: 'Standard' }));
  await call(
    'PUT',
    `/merchants/${merchant}/payout-schedule`,
    resource('merchants', { interval: 'manual', delayDays: 0 }),
  );
  for (const status of ['suspended', 'active']) {
    await admin('PUT', `/admin/merchants/${merchant}/status`, resource('merchants', { status, reason: 'golden' }));
  }
  await admin(
    'PUT',
    `/admin/merchants/${merchant}/features`,
    resource('merchants', { features: { secondSplit: true } }),
  );

  // Cards in the vault, and a customer.
  const card = async (number: string) =>
    (
      await call(
        'POST',
        '/tokens',
        resource('tokens', {
          tokenType: 'card',
          card: { holder: 'Jane Doe', number, expiry: EXPIRY, code: '123' },
          billingAddress,
        }),
      )
    ).body.data.id as string;
  const visa = await card(CARDS.visa);
  const chargeback = await card(CARDS.chargeback);
  const challenge = await card(CARDS.challenge);
  await call('GET', `/tokens/${visa}`);
  await call('GET', '/tokens?limit=2');
  const customer = (await call('POST', '/customers', resource('customers', { name: 'Sam Buyer' }))).body.data.id;
  await call('GET', `/customers/${customer}`);
  await call('GET', '/customers');

  // Payments: approved, refunded in part, one with a member the body does not take, one waiting for 3-D Secure.
  const payment = (tokenId: string, requestId: string, attributes: Record<string, unknown> = {}) =>
    resource(
      'payments',
      {
        paymentType: 'tokenv3',
        merchantId: merchant,
        token: { tokenId, holder: 'Jane Doe', expiry: EXPIRY, useAVS: true },
        transaction: { amount: '2500', currency: 'USD', invoice: 'INV-GOLDEN' },
        billingAddress,
        ...attributes,
      },
      requestId,
    );
  const paid = (await call('POST', '/payments', payment(visa, uuid(1)))).body.data.id;
  await call('POST', '/payments', payment(visa, uuid(1)));
  await call('POST', '/payments', payment(visa, uuid(2), { colour: 'red' }));
  await call(
    'POST',
    '/payments',
    resource(
      'payments',
      { paymentType: 'refund', parentPaymentId: paid, transaction: { amount: '500', currency: 'USD' } },
      uuid(3),
    ),
  );
  const authentication = { mode: 'automatic', returnUrl: 'https://shop.example.com/done' };
  const waiting = (await call('POST', '/payments', payment(challenge, uuid(4), { authentication }))).body.data;
  const challengeToken = new URL(waiting.attributes.nextAction.url).searchParams.get('token');
  await call('GET', `/payments/${waiting.id}`);
  await call(
    'POST',
    `/payments/${waiting.id}/authentication`,
    resource('authentications', { token: challengeToken, outcome: 'completed' }),
  );
  await call('POST', '/payments', payment(chargeback, uuid(5)));
  await call('POST', '/payments', achBody({ merchantId: merchant, requestId: uuid(7) }));
  await call('GET', '/payments/states');
  await call('GET', `/payments/status/${paid}`);
  await call('GET', `/payments/${paid}`);
  await call('GET', `/payments/${paid}/ledger-entries`);
  await call('GET', `/payments?merchantId=${merchant}&limit=2`);
  await call('GET', `/payments?merchantId=${merchant}&limit=1&colour=red`);

  // The day settles; the next business day the chargeback opens; the merchant is paid out.
  const deps = {
    db: stack.db,
    config: stack.config,
    cipher: createDataCipher(stack.config),
    processor: new SandboxProcessor({ db: stack.db }),
    log: createLogger({ level: 'silent' }),
  };
  const started = new Date((await call('GET', '/sandbox/clock')).body.data.attributes.now).getTime();
  const days = (n: number) => new Date(started + n * 86_400_000).toISOString();
  await call('POST', '/sandbox/clock', resource('clock', { time: days(5) }));
  await runSettlementPass(deps, { now: new Date(), batchSize: 100, accountId: account.id });
  await call('POST', '/sandbox/clock', resource('clock', { time: days(12) }));
  await runDisputes(deps, { now: new Date(), accountId: account.id });
  const dispute = (await call('GET', '/disputes')).body.data[0]?.id ?? 'dp_00000000000000000000000000';
  await call('GET', `/disputes/${dispute}`);
  await call(
    'POST',
    `/disputes/${dispute}/evidence`,
    resource('disputes', { evidence: { productDescription: 'A framed print', customerName: 'Jane Doe' } }),
  );
  await call('POST', `/disputes/${dispute}/accept`);
  await call('GET', '/balance');
  await call('GET', `/merchants/${merchant}/balance`);
  await call('GET', `/merchants/${merchant}/balance-transactions?limit=20`);
  const payout = (await call('POST', '/payouts', resource('payouts', { merchantId: merchant, amount: '100' }, uuid(6))))
    .body.data?.id;
  await call('GET', '/payouts');
  await call('GET', `/payouts/${payout ?? 'po_00000000000000000000000000'}`);
  await call('GET', `/payouts/${payout ?? 'po_00000000000000000000000000'}/reconciliation`);
  const settledDay = (await call('GET', '/reports/daily')).body.data?.attributes?.days?.at(-1)?.date;
  await call('GET', `/reports/settlement?date=${settledDay ?? '2026-11-30'}`);
  const achFile = (await admin('GET', '/admin/ach-files')).body.data?.[0]?.id ?? 'ach_00000000000000000000000000';
  await admin('GET', `/admin/ach-files/${achFile}`);

  // The hosted checkout's session and card.
  const session = (
    await call(
      'POST',
      '/checkout/sessions',
      resource('checkoutSessions', { allowedOrigins: ['https://shop.example.com'], customerId: customer }),
    )
  ).body.data;
  await call('GET', `/checkout/sessions/${session.id}`);
  const secretHeaders = headers;
  headers = { 'x-client-secret': session.attributes.clientSecret, origin: 'https://shop.example.com' };
  await call(
    'POST',
    `/checkout/sessions/${session.id}/tokens`,
    resource('tokens', {
      tokenType: 'card',
      card: { holder: 'Sam Buyer', number: CARDS.visa, expiry: EXPIRY, code: '123' },
    }),
  );
  headers = secretHeaders;

  // Webhooks and the events they carry.
  const endpoint = (
    await call(
      'POST',
      '/webhooks',
      resource('webhooks', { url: 'https://receiver.example.com/hooks', events: ['*'], description: 'Golden' }),
    )
  ).body.data.id;
  await call('GET', '/webhooks');
  await call('GET', `/webhooks/${endpoint}`);
  await call('PUT', `/webhooks/${endpoint}`, resource('webhooks', { description: 'Golden, renamed' }));
  await call('POST', `/webhooks/${endpoint}/rotate-secret`);
  await call('POST', `/webhooks/${endpoint}/test`);
  await call('POST', `/webhooks/${endpoint}/recover`);
  await call('GET', `/webhooks/${endpoint}/deliveries`);
  const events = (await call('GET', `/events?resourceId=${waiting.id}`)).body.data as { id: string }[];
  const event = events[0]?.id ?? 'evt_00000000000000000000000000';
  await call('GET', `/events/${event}`);
  await call('GET', `/events/${event}/deliveries`);
  await call('POST', `/events/${event}/redeliver`);
  await call('DELETE', `/webhooks/${endpoint}`);

  // The request log of all of it.
  await stack.requestLog?.flush();
  const requests = (await call('GET', '/requests?limit=3')).body.data as { id: string }[];
  await call('GET', `/requests/${requests[0]?.id ?? 'req_00000000000000000000000000'}`);
  return exchanges;
}
