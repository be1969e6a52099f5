import { Writable } from 'node:stream';
import { createLogger } from '@pps/shared/logger';
import Redis from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBusinessMerchant, createMerchant } from '../fixtures/merchants';
import { achBody, createPayment, expiryIn, postPayment, refundBody, setClock, tokenv3Body } from '../fixtures/payments';
import { createTestStack, type TestStack } from '../harness';
import { waitFor } from '../wait';

/**
 * Secrets never leak: a full scenario (merchants with SSN, EIN and bank accounts, vault tokens, a card vaulted through
 * a checkout session's hosted form, card and ACH payments, a refund, settlement with its NACHA file, a webhook
 * endpoint) runs with every log line captured, then the log output, every text and JSON column of the database and
 * every queue key in Redis (the job payloads) are searched for the clear values.
 */

/** A Redis key's value as text, whatever its type. */
async function redisText(redis: Redis, key: string): Promise<string> {
  const type = await redis.type(key);
  const value =
    type === 'string'
      ? await redis.get(key)
      : type === 'hash'
        ? await redis.hgetall(key)
        : type === 'list'
          ? await redis.lrange(key, 0, -1)
          : type === 'set'
            ? await redis.smembers(key)
            : type === 'zset'
              ? await redis.zrange(key, 0, -1)
              : type === 'stream'
                ? await redis.xrange(key, '-', '+')
                : null;
  return JSON.stringify(value);
}

const logLines: string[] = [];
let stack: TestStack;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  stack = await createTestStack({
    settlement: true,
    webhooks: true,
    log: createLogger({ level: 'trace', destination: sink }),
  });
});
afterAll(() => stack?.close());

describe('secrets', () => {
  it('never reach a log line or a database column in clear', async () => {
    const creds = await stack.createAccount('Secrets Platform');
    const ssn = '518274963';
    const ein = '459871236';
    const merchantAccount = '7712345678901';
    const achAccount = '8812345678902';
    const personal = await createMerchant(stack, creds, {
      personalInfo: {
        firstName: 'Sam',
        lastName: 'Secret',
        email: 'sam.secret@example.com',
        dayPhone: '4155550100',
        birthDate: '04-12-1985',
        socialSecurity: ssn,
      },
      bankInfo: {
        bankName: 'First Test Bank',
        accountOwnership: 'personal',
        accountType: 'checking',
        accountName: 'Sam Secret',
        accountNumber: merchantAccount,
        routingNumber: '011000015',
      },
    });
    await createBusinessMerchant(stack, creds, {
      businessInfo: { businessName: 'Secret Widgets', ein, phone: '4155550199', email: 'billing.secret@example.com' },
    });
    const pan = '5555555555554444';
    const code = '837';
    const token = await stack.call('POST', '/tokens', {
      as: creds,
      body: {
        data: {
          type: 'tokens',
          attributes: { tokenType: 'card', card: { holder: 'Sam Secret', number: pan, expiry: expiryIn(2), code } },
        },
      },
    });
    expect(token.status).toBe(201);
    // The embedded checkout: a session (its client secret) and the hosted form's card POST.
    const checkoutPan = '6011111111111117';
    const session = await stack.call('POST', '/checkout/sessions', {
      as: creds,
      body: { data: { type: 'checkoutSessions', attributes: { allowedOrigins: ['https://shop.example.com'] } } },
    });
    const clientSecret = session.body.data.attributes.clientSecret as string;
    const vaulted = await stack.call('POST', `/checkout/sessions/${session.body.data.id}/tokens`, {
      headers: { 'x-client-secret': clientSecret },
      body: {
        data: {
          type: 'tokens',
          attributes: {
            tokenType: 'card',
            card: { holder: 'Sam Secret', number: checkoutPan, expiry: expiryIn(2), code },
          },
        },
      },
    });
    expect(vaulted.status).toBe(201);
    await createPayment(stack, creds, tokenv3Body({ merchantId: personal, tokenId: vaulted.body.data.id }));
    const card = await createPayment(stack, creds, tokenv3Body({ merchantId: personal, tokenId: token.body.data.id }));
    await postPayment(stack, creds, refundBody(card.body.data.id, '100'));
    const ach = await createPayment(stack, creds, achBody({ merchantId: personal, accountNumber: achAccount }));
    const webhook = await stack.call('POST', '/webhooks', {
      as: creds,
      body: { data: { type: 'webhooks', attributes: { url: 'http://127.0.0.1:9/hooks', events: ['*'] } } },
    });
    const webhookSecret = webhook.body.data.attributes.secret as string;
    // Settle the ACH debit, so its NACHA file is written too.
    await setClock(stack, creds, new Date(new Date(ach.body.data.attributes.settleAt).getTime() + 1000));
    await waitFor(
      async () => (await stack.sql`select ach_file_id from payments where id = ${ach.body.data.id}`)[0]?.ach_file_id,
      { timeoutMs: 15_000, what: 'the ACH debit in a NACHA file' },
    );
    const [filed] = await stack.sql`select ach_file_id from payments where id = ${ach.body.data.id}`;
    expect(filed!.ach_file_id).toMatch(/^ach_/);

    const secrets: Record<string, string> = {
      'card number': pan,
      'card number (checkout)': checkoutPan,
      'checkout client secret': clientSecret,
      SSN: ssn,
      EIN: ein,
      'merchant bank account': merchantAccount,
      'ACH bank account': achAccount,
      'API key': creds.apiKey,
      'app key': creds.appKey,
      'app token': creds.appToken,
      'webhook secret': webhookSecret,
    };
    expect(logLines.length).toBeGreaterThan(10);
    const log = logLines.join('');
    for (const [name, value] of Object.entries(secrets)) {
      expect(log.includes(value), `${name} in the logs`).toBe(false);
    }
    expect(/\b837\b/.test(log), 'security code in the logs').toBe(false);

    const columns = await stack.sql<{ table_name: string; column_name: string }[]>`
      select table_name, column_name from information_schema.columns
      where table_schema = 'public' and data_type in ('text', 'jsonb', 'character varying', 'json')
        and table_name not like '\\_\\_%'`;
    expect(columns.length).toBeGreaterThan(50);
    for (const { table_name, column_name } of columns) {
      const values = (await stack.sql.unsafe(`select "${column_name}"::text as v from "${table_name}"`)) as {
        v: string | null;
      }[];
      const text = values.map((row) => row.v ?? '').join('\n');
      for (const [name, value] of Object.entries(secrets)) {
        expect(text.includes(value), `${name} in ${table_name}.${column_name}`).toBe(false);
      }
      expect(/(?<![\w-])837(?![\w-])/.test(text), `security code in ${table_name}.${column_name}`).toBe(false);
    }
    // Job payloads: every key of this stack's queues in Redis (BullMQ jobs are hashes; their events are streams).
    const redis = new Redis(stack.config.REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      // Its queues' keys (`{<prefix>:<queue>}:…`) and its rate-limit counters (`<prefix>:rl:…`).
      const keys = [
        ...(await redis.keys(`{${stack.config.QUEUE_PREFIX}:*`)),
        ...(await redis.keys(`${stack.config.QUEUE_PREFIX}:*`)),
      ];
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) {
        const text = await redisText(redis, key);
        for (const [name, value] of Object.entries(secrets)) {
          expect(text.includes(value), `${name} in Redis ${key}`).toBe(false);
        }
      }
    } finally {
      redis.disconnect();
    }
    // The NACHA file is readable by ops (decrypted), and holds the ACH account there.
    const file = await stack.call('GET', `/admin/ach-files/${filed!.ach_file_id}`, { headers: stack.admin });
    expect(file.body).toContain(achAccount);
  });
});
