import Redis from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../fixtures/merchants';
import { createCardToken, postPayment, tokenv3Body } from '../fixtures/payments';
import { createTestStack, type TestStack } from '../harness';

/** Redis being down never fails a payment: the API needs only PostgreSQL (docs/design.md). */
let stack: TestStack;
let deadRedis: Redis;

beforeAll(async () => {
  // Port 1 on loopback: nothing listens there, so every command fails fast.
  deadRedis = new Redis('redis://127.0.0.1:1', {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
  });
  deadRedis.on('error', () => {});
  stack = await createTestStack({ redis: deadRedis });
});
afterAll(async () => {
  deadRedis.disconnect();
  await stack.close();
});

describe('with Redis unreachable', () => {
  it('stays ready, says Redis is unreachable, and still takes payments', async () => {
    const ready = await stack.call('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toEqual({ database: 'ok', redis: 'unreachable', rateLimits: 'failing open' });

    const creds = await stack.createAccount();
    const merchantId = await createMerchant(stack, creds);
    const tokenId = await createCardToken(stack, creds);
    const payment = await postPayment(stack, creds, tokenv3Body({ merchantId, tokenId, amount: '2500' }));
    expect(payment.status).toBe(201);
    const [event] = await stack.sql`
      select type, exists (select 1 from unrelayed_events where event_id = events.id) as queued
      from events where resource_id = ${payment.body.data.id}`;
    // The event waits in the outbox, queued for the relay; nothing was lost.
    expect(event).toEqual({ type: 'payment.created', queued: true });
  });
});
