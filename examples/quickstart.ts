/**
 * The SDK's quick start (packages/sdk/README.md), run against a running API. `npm start` prints a demo API key and
 * app id; then, in another terminal:
 *
 *   PPS_URL=http://127.0.0.1:8080 PPS_API_KEY=sk_test_… PPS_APP_ID=app_… PPS_APP_KEY=… npx tsx examples/quickstart.ts
 *
 * It creates a merchant, vaults a card, subscribes a local webhook receiver (on PPS_WEBHOOK_PORT, any free port
 * unless given), pays, refunds part of the payment, reads it back, lists the merchant's payments, waits for the
 * payment's `payment.created` webhook and verifies it, shows a refused request as a `PpsError`, and cleans up. One
 * line per step; exit code 0 when every step worked. PPS_APP_KEY, when set, is used instead of making an app key: a
 * new app key revokes the previous key of the app and every token minted from it (a shell's, say).
 * The API delivers the webhook to 127.0.0.1, so run it on the machine the API runs on (a local `npm start`).
 */
import { randomInt } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, PpsError, verifyWebhook, type WebhookEvent } from '@pps/sdk';

function env(name: string): string {
  const value = process.env[name];
  if (!value) {
    console.error(`${name} is not set: npm start prints the demo API key and app id`);
    process.exit(2);
  }
  return value;
}

/** A card expiry (MMYY) two years from now. */
function expiryInTwoYears(): string {
  const now = new Date();
  return `${String(now.getMonth() + 1).padStart(2, '0')}${String((now.getFullYear() + 2) % 100).padStart(2, '0')}`;
}

// 1. The client. The two-step auth (API key → app key → app token) happens on the first call.
const client = createClient({
  baseUrl: env('PPS_URL'),
  apiKey: env('PPS_API_KEY'),
  appId: env('PPS_APP_ID'),
  appKey: process.env.PPS_APP_KEY || undefined,
});
console.log(`client: ${env('PPS_URL')}, app ${env('PPS_APP_ID')}`);

// 2. A merchant. Email and SSN must be unique per account, so each run makes up its own.
const { data: merchant } = await client.POST('/merchants', {
  body: {
    data: {
      type: 'merchants',
      attributes: {
        accountType: 'personal',
        accountName: 'Jane Doe Photography',
        AVS: 'Standard',
        fraudScreenPolicy: 'Default',
        personalInfo: {
          firstName: 'Jane',
          lastName: 'Doe',
          email: `jane.${randomInt(1e9)}@example.com`,
          dayPhone: '4155550100',
          birthDate: '04-12-1985',
          socialSecurity: `${randomInt(100, 666)}${randomInt(10, 100)}${randomInt(1000, 10000)}`,
        },
        personalAddress: { line1: '1 Market St', city: 'San Francisco', state: 'CA', zip: '94105', country: 'USA' },
        bankInfo: {
          bankName: 'First Test Bank',
          accountOwnership: 'personal',
          accountType: 'checking',
          accountName: 'Jane Doe',
          accountNumber: '000123456789',
          routingNumber: '021000021',
        },
        verificationData: {
          ipAddress: '203.0.113.7',
          emailVerified: true,
          signature: 'Jane Doe',
          signatureTimestamp: new Date().toISOString(),
          termsAccepted: true,
        },
      },
    },
  },
});
// Every refusal is thrown as a PpsError, so a call that returns has its data.
const merchantId = merchant.data.id;
console.log(`merchant: ${merchantId} (${merchant.data.attributes.status})`);

// 3. A vault token for a sandbox card.
const expiry = expiryInTwoYears();
const { data: token } = await client.POST('/tokens', {
  body: {
    data: {
      type: 'tokens',
      attributes: {
        tokenType: 'card',
        card: { holder: 'Jane Buyer', number: '4111111111111111', expiry, code: '123' },
        billingAddress: { line1: '1 Main St', zip: '94105', country: 'USA' },
      },
    },
  },
});
const tokenId = token.data.id;
console.log(`card token: ${tokenId} (${token.data.attributes.card.brand} ${token.data.attributes.card.last4})`);

// 4. A local webhook receiver: it reads the raw body (verifyWebhook needs it exactly as sent), verifies it, and
// answers 204; a delivery it cannot verify gets a 400, and the API sends it again later.
let secret: string | undefined;
const verified: WebhookEvent[] = [];
let onEvent = () => {};
const receiver = createServer(async (request, response) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  if (!secret) return void response.writeHead(503).end(); // not subscribed yet: the API retries
  try {
    verified.push(verifyWebhook(Buffer.concat(chunks), request.headers, secret));
    response.writeHead(204).end();
    onEvent();
  } catch {
    response.writeHead(400).end();
  }
});
receiver.listen(Number(process.env.PPS_WEBHOOK_PORT ?? 0), '127.0.0.1');
await once(receiver, 'listening');
const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/pps`;
const { data: endpoint } = await client.POST('/webhooks', {
  body: { data: { type: 'webhooks', attributes: { url: hookUrl, events: ['*'], description: 'quickstart' } } },
});
secret = endpoint.data.attributes.secret; // whsec_…, shown in this answer only: keep it in your secrets store
console.log(`webhooks: ${hookUrl} subscribed as ${endpoint.data.id}`);

// 5. A payment. createPayment sets data.requestId (the idempotency key) and retries safely with it.
/** A tokenv3 payment of `amount` cents to the merchant with the vaulted card (its card details sent again). */
const cardPayment = (amount: string, invoice: string) =>
  client.createPayment({
    data: {
      type: 'payments',
      attributes: {
        paymentType: 'tokenv3',
        merchantId,
        token: { tokenId, holder: 'Jane Buyer', expiry, useAVS: true },
        transaction: { amount, currency: 'USD', invoice },
        billingAddress: { line1: '1 Main St', zip: '94105', country: 'USA' },
      },
    },
  });
const { data: payment } = await cardPayment('1000', 'INV-1');
const paymentId = payment.data.id;
console.log(
  `payment: ${paymentId} ${payment.data.attributes.status}, ${payment.data.attributes.transaction.amount} USD`,
);

// 6. Refund part of it: a refund (not a void, which takes the full amount) is a payment record of its own.
const { data: refund } = await client.createPayment({
  data: {
    type: 'payments',
    attributes: { paymentType: 'refund', parentPaymentId: paymentId, transaction: { amount: '300', currency: 'USD' } },
  },
});
const { transaction, status } = refund.data.attributes;
console.log(`refund: ${refund.data.id} ${transaction.refundType} of ${transaction.amount}, ${status}`);

// 7. Read the payment back.
const { data: readBack } = await client.GET('/payments/{id}', { params: { path: { id: paymentId } } });
const { attributes } = readBack.data;
console.log(`read back: ${paymentId} ${attributes.status}, refundable ${attributes.refundableAmount}`);

// 8. Every payment record of the merchant (the payment and its refund), page after page.
const listed: string[] = [];
for await (const item of client.list('/payments', { query: { id: merchantId } })) {
  listed.push(`${item.attributes.paymentType} ${item.attributes.status}`);
}
console.log(`listed: ${listed.length} payments of ${merchantId} (${listed.join(', ')})`);

// 9. The payment.created webhook of the payment, verified by the receiver above.
const isCreated = (event: WebhookEvent) => event.type === 'payment.created' && event.data.id === paymentId;
const created = await new Promise<WebhookEvent | undefined>((resolve) => {
  const timer = setTimeout(() => resolve(undefined), 15_000);
  onEvent = () => {
    const event = verified.find(isCreated);
    if (event) {
      clearTimeout(timer);
      resolve(event);
    }
  };
  onEvent();
});
if (!created) throw new Error(`no verified payment.created webhook for ${paymentId} within 15 s`);
console.log(`webhook verified: ${created.type} ${created.data.id} (sequence ${created.data.sequence})`);

// 10. A refusal: 50 cents is the least a payment may be. Every non-2xx answer is thrown as a PpsError.
try {
  await cardPayment('1', 'INV-2');
  throw new Error('a payment of 1 cent was accepted');
} catch (error) {
  if (!(error instanceof PpsError)) throw error;
  console.log(`error: ${error.status} ${error.code} at ${error.pointer} (request ${error.requestId})`);
}

// 11. Unsubscribe and stop the receiver.
await client.DELETE('/webhooks/{id}', { params: { path: { id: endpoint.data.id } } });
receiver.closeAllConnections();
await new Promise((resolve) => receiver.close(resolve));
console.log('done');
