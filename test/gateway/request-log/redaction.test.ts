import { randomInt } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { businessMerchantAttributes, personalMerchantAttributes } from '../../fixtures/merchants';
import { achBody, expiryIn, tokenv3Body } from '../../fixtures/payments';
import { createWorld, type World } from '../../fixtures/world';
import { type Credentials, createTestStack, type TestStack } from '../../harness';

/**
 * No secret reaches the request log, as a property: each run sends, as a new account, requests carrying every kind
 * of secret in the fields where it belongs (a card's number and code, an SSN, an EIN, bank account and routing
 * numbers) and again in fields where no one would look for it (`miscData`, an invoice, a webhook's description, a
 * token's label), and gets secrets issued in its answers (its API key, app key and app token, a webhook signing
 * secret, a checkout client secret). Then every row the account left in the log is read as raw text, the row
 * whole, and none of those values may be in it.
 */
let stack: TestStack;
let world: World;

beforeAll(async () => {
  stack = await createTestStack({ requestLog: true });
  world = await createWorld(stack);
});
afterAll(() => stack?.close());

/** `digits` with a last digit that makes the Luhn check pass. */
function withLuhnDigit(digits: string): string {
  for (let check = 0; check <= 9; check++) {
    const candidate = `${digits}${check}`;
    let sum = 0;
    for (let i = 0; i < candidate.length; i++) {
      let digit = Number(candidate[candidate.length - 1 - i]);
      if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
      sum += digit;
    }
    if (sum % 10 === 0) return candidate;
  }
  throw new Error('unreachable');
}

/** A routing number passing the ABA checksum, with a Federal Reserve prefix. */
function routingNumber(seed: string): string {
  const eight = `0${(Number(seed.slice(0, 1)) % 2) + 1}${seed.slice(1, 7)}`;
  const weights = [3, 7, 1, 3, 7, 1, 3, 7];
  const sum = [...eight].reduce((total, digit, index) => total + Number(digit) * weights[index]!, 0);
  return `${eight}${(10 - (sum % 10)) % 10}`;
}

const digits = (length: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: length, maxLength: length });

/** A card of each brand, by issuer prefix and length. */
const card = fc
  .tuple(
    fc.constantFrom(
      { brand: 'visa', prefix: '4', length: 16 },
      { brand: 'visa', prefix: '4', length: 19 },
      { brand: 'mastercard', prefix: '53', length: 16 },
      { brand: 'mastercard', prefix: '2720', length: 16 },
      { brand: 'amex', prefix: '37', length: 15 },
      { brand: 'discover', prefix: '6011', length: 16 },
      { brand: 'discover', prefix: '65', length: 16 },
    ),
    digits(18),
  )
  .map(([{ brand, prefix, length }, body]) => ({
    brand,
    number: withLuhnDigit(`${prefix}${body}`.slice(0, length - 1)),
    code: brand === 'amex' ? body.slice(0, 4) : body.slice(0, 3),
  }));

const secrets = fc.record({
  card,
  ssn: fc
    .tuple(fc.integer({ min: 100, max: 665 }), fc.integer({ min: 10, max: 99 }), fc.integer({ min: 1000, max: 9999 }))
    .map(([area, group, serial]) => `${area}${group}${serial}`),
  ein: fc
    .tuple(fc.constantFrom('10', '12', '20', '27', '45', '91'), fc.integer({ min: 1_000_000, max: 9_999_999 }))
    .map(([prefix, rest]) => `${prefix}${rest}`),
  accountNumber: fc.integer({ min: 9, max: 17 }).chain((length) => digits(length)),
  routingNumber: digits(8).map(routingNumber),
  /** Where an unexpected secret is written: as it is, grouped, or dashed. */
  style: fc.constantFrom('plain', 'grouped'),
});

type Secrets = typeof secrets extends fc.Arbitrary<infer T> ? T : never;

const ssnDashed = (ssn: string) => `${ssn.slice(0, 3)}-${ssn.slice(3, 5)}-${ssn.slice(5)}`;
const einDashed = (ein: string) => `${ein.slice(0, 2)}-${ein.slice(2)}`;
const grouped = (number: string) => number.replace(/(\d{4})(?=\d)/g, '$1 ');

/** The values no row may hold: every secret as sent, and as the answers issued it. */
type Issued = { apiKey: string; appKey: string; appToken: string; webhookSecret?: string; clientSecret?: string };

/** Sends, as `as`, every request of a run; returns the secrets the answers issued. */
async function sendSecrets(as: Credentials, s: Secrets): Promise<Issued> {
  const cardText = s.style === 'grouped' ? grouped(s.card.number) : s.card.number;
  const anywhere = `card ${cardText} ssn ${ssnDashed(s.ssn)} ${s.ssn} ein ${einDashed(s.ein)} ${s.ein} acct ${s.accountNumber} aba ${s.routingNumber}`;
  const keys = `key ${as.apiKey} app ${as.appKey} token ${as.appToken}`;
  const call = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
    stack.call(method, path, { as, body, headers });

  // The card where it belongs, and in the token's label.
  await call('POST', '/tokens', {
    data: {
      type: 'tokens',
      attributes: {
        tokenType: 'card',
        card: { holder: 'Jane Doe', number: s.card.number, expiry: expiryIn(2), code: s.card.code },
        label: `card ${cardText}`.slice(0, 100),
      },
    },
  });
  // SSN, bank numbers where they belong; everything in miscData.
  const personal = await call('POST', '/merchants', {
    data: {
      type: 'merchants',
      attributes: personalMerchantAttributes({
        miscData: `${anywhere} ${keys}`,
        personalInfo: { ...personalMerchantAttributes().personalInfo, socialSecurity: s.ssn },
        bankInfo: {
          ...personalMerchantAttributes().bankInfo,
          accountNumber: s.accountNumber,
          routingNumber: s.routingNumber,
        },
      }),
    },
  });
  await call('POST', '/merchants', {
    data: {
      type: 'merchants',
      attributes: businessMerchantAttributes({
        businessInfo: { ...businessMerchantAttributes().businessInfo, ein: einDashed(s.ein) },
        miscData: anywhere,
      }),
    },
  });
  const merchantId = personal.status === 201 ? (personal.body.data.id as string) : world.merchantId;
  // Bank numbers of an ACH debit where they belong; secrets in its invoice and miscData.
  await call(
    'POST',
    '/payments',
    achBody({
      merchantId,
      accountNumber: s.accountNumber,
      attributes: { miscData: `${anywhere} ${keys}` },
    }),
  );
  await call(
    'POST',
    '/payments',
    tokenv3Body({
      merchantId: world.merchantId,
      tokenId: world.tokenId as string,
      attributes: {
        miscData: JSON.stringify({ note: anywhere, apiKey: as.apiKey, nested: { token: as.appToken } }),
        transaction: { amount: '1000', currency: 'USD', invoice: `INV ${s.ssn} ${cardText}`.slice(0, 100) },
      },
    }),
  );
  // A webhook endpoint: secrets in its description; its signing secret in the answer.
  const webhook = await call('POST', '/webhooks', {
    data: {
      type: 'webhooks',
      attributes: {
        url: 'https://receiver.example.com/hooks',
        events: ['*'],
        description: `${anywhere} ${keys}`.slice(0, 500),
      },
    },
  });
  // A checkout session's client secret, and the hosted form's card POST with it.
  const session = await call('POST', '/checkout/sessions', {
    data: { type: 'checkoutSessions', attributes: { allowedOrigins: ['https://shop.example.com'] } },
  });
  const clientSecret = session.body?.data?.attributes?.clientSecret as string | undefined;
  if (clientSecret) {
    await stack.call('POST', `/checkout/sessions/${session.body.data.id}/tokens`, {
      headers: { 'x-client-secret': clientSecret },
      body: {
        data: {
          type: 'tokens',
          attributes: {
            tokenType: 'card',
            card: { holder: 'Jane Buyer', number: cardText, expiry: expiryIn(2), code: s.card.code },
          },
        },
      },
    });
  }
  return {
    apiKey: as.apiKey,
    appKey: as.appKey,
    appToken: as.appToken,
    webhookSecret: webhook.body?.data?.attributes?.secret,
    clientSecret,
  };
}

describe('the request log', () => {
  it('keeps no secret, sent where it belongs or anywhere else, or issued in an answer', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(secrets, async (s) => {
        const as = await stack.createAccount(`Redaction ${++run} ${randomInt(1e9)}`);
        const issued = await sendSecrets(as, s);
        await stack.requestLog?.flush();
        const rows = await stack.sql<{ row: string; body: string | null; path: string }[]>`
          select r::text as row, request_body as body, path from request_log r where account_id = ${as.accountId}`;
        // The harness's own /auth/key and /auth/token, and every request above.
        expect(rows.length).toBeGreaterThanOrEqual(9);
        expect(issued.webhookSecret).toMatch(/^whsec_/);
        expect(issued.clientSecret).toMatch(/^cs_secret_/);
        const text = rows.map((row) => row.row).join('\n');
        const values = [
          s.card.number,
          grouped(s.card.number),
          s.ssn,
          ssnDashed(s.ssn),
          s.ein,
          einDashed(s.ein),
          s.accountNumber,
          s.routingNumber,
          ...Object.values(issued),
        ];
        for (const value of values) {
          if (value) expect(text, `${value} is in the log`).not.toContain(value);
        }
        // A security code has no shape to search for: its field is redacted wherever a card is sent.
        for (const { body } of rows.filter((row) => row.path === '/tokens' || row.path.endsWith('/tokens'))) {
          const parsed = JSON.parse(body as string);
          expect(parsed.data.attributes.card.code).toBe('[redacted]');
        }
      }),
      { numRuns: 12 },
    );
  });
});
