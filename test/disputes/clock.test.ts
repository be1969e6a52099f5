import { settleAtFor } from '@pps/shared/clock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../fixtures/merchants';
import { createCardToken, createPayment, setClock, tokenv3Body } from '../fixtures/payments';
import { type Credentials, createTestStack, type TestStack } from '../harness';
import { waitFor } from '../wait';

/**
 * With the settlement workers running, moving an account's sandbox clock runs its disputes at once, as it settles
 * and pays out: a chargeback card's payment is disputed the business day after it settles, and an unanswered
 * dispute is lost once its dueBy passes, with no call but the clock's.
 */
let stack: TestStack;
let creds: Credentials;

beforeAll(async () => {
  stack = await createTestStack({ settlement: true });
  creds = await stack.createAccount('Clocked Disputes');
});
afterAll(() => stack?.close());

const disputesOf = async (paymentId: string) =>
  (await stack.call('GET', `/disputes?paymentId=${paymentId}`, { as: creds })).body.data as {
    id: string;
    attributes: { status: string; dueBy: string };
  }[];

describe('the sandbox clock', () => {
  it('opens a dispute the business day after settlement, and loses it unanswered past dueBy', async () => {
    const [merchantId, tokenId] = await Promise.all([
      createMerchant(stack, creds),
      createCardToken(stack, creds, '4000000000000259'),
    ]);
    const paid = await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId, amount: '2500' }));
    const paymentId: string = paid.body.data.id;
    await setClock(stack, creds, new Date(new Date(paid.body.data.attributes.settleAt).getTime() + 1000));
    const settledAt = await waitFor(
      async () => (await stack.call('GET', `/payments/${paymentId}`, { as: creds })).body.data.attributes.settledAt,
      { until: (at) => at !== null, what: 'the payment settled' },
    );
    expect(await disputesOf(paymentId)).toEqual([]);

    await setClock(stack, creds, new Date(settleAtFor(new Date(settledAt), 1).getTime() + 1000));
    const [opened] = await waitFor(() => disputesOf(paymentId), {
      until: (found) => found.length === 1,
      what: 'the dispute opened by the clock',
    });
    expect(opened!.attributes.status).toBe('needs_response');

    await setClock(stack, creds, new Date(new Date(opened!.attributes.dueBy).getTime() + 1000));
    await waitFor(() => disputesOf(paymentId), {
      until: (found) => found[0]?.attributes.status === 'lost',
      what: 'the unanswered dispute lost past dueBy',
    });
  });
});
