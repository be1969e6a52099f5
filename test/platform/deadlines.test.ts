import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPayment, postPayment, refundBody, tokenv3Body } from '../fixtures/payments';
import { createWorld } from '../fixtures/world';
import { type Credentials, createTestStack, type TestStack } from '../harness';

/**
 * A request waiting on a row lock that someone else holds is answered 503 with Retry-After within the deadline
 * (here 1.5 s), and the lock's holder goes on as if nothing happened; once the lock is gone, a retry with the same
 * requestId makes the refund, once (docs/design.md, Deadlines).
 */

const DEADLINE_MS = 1500;

let stack: TestStack;
let creds: Credentials;
let merchantId: string;
let tokenId: string;

beforeAll(async () => {
  stack = await createTestStack({ env: { REQUEST_DEADLINE_MS: String(DEADLINE_MS) } });
  ({ creds, merchantId, tokenId } = await createWorld(stack));
});
afterAll(() => stack?.close());

describe('a row lock held from outside', () => {
  it('answers the refund waiting on it 503 within the deadline; the holder is unaffected; a retry refunds once', async () => {
    const paymentId = (await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId, amount: '5000' }))).body
      .data.id as string;
    const holder = await stack.sql.reserve();
    try {
      await holder`begin`;
      await holder`select id from payments where id = ${paymentId} for update`;

      const requestId = randomUUID();
      const started = performance.now();
      const waiting = await postPayment(stack, creds, refundBody(paymentId, '1000', requestId));
      const ms = performance.now() - started;
      // The lock wait ends at half the deadline (`lock_timeout`): the database's answer, in time.
      expect(ms).toBeGreaterThan(DEADLINE_MS / 2 - 50);
      expect(ms).toBeLessThan(DEADLINE_MS + 1000);
      expect(waiting.status).toBe(503);
      expect(waiting.headers.get('retry-after')).toBe('1');
      expect(waiting.body.errors).toEqual([
        {
          status: '503',
          code: 'database_unavailable',
          title: 'Service Unavailable',
          detail: expect.stringContaining('retry'),
        },
      ]);
      // Reads of one resource keep answering meanwhile.
      const read = await stack.call('GET', `/payments/${paymentId}`, { as: creds });
      expect(read.status).toBe(200);

      // The holder's transaction is as it was: it reads, writes and commits.
      await holder`update payments set updated_at = updated_at where id = ${paymentId}`;
      await holder`commit`;

      // A retry with the same requestId makes the refund, and only one.
      let retried = await postPayment(stack, creds, refundBody(paymentId, '1000', requestId));
      for (let attempt = 0; retried.status !== 201 && attempt < 50; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        retried = await postPayment(stack, creds, refundBody(paymentId, '1000', requestId));
      }
      expect(retried.status).toBe(201);
      const refunds = await stack.sql`
        select id from payments where parent_payment_id = ${paymentId} and payment_type = 'refund'`;
      expect(refunds.map((row) => row.id)).toEqual([retried.body.data.id]);
    } finally {
      await holder`rollback`.catch(() => {});
      holder.release();
    }
  }, 30_000);
});
