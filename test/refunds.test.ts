import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from './fixtures/merchants';
import { createCardToken, createPayment, postPayment, refundBody, tokenv3Body } from './fixtures/payments';
import { type Credentials, createTestStack, type TestStack } from './harness';

let stack: TestStack;
let creds: Credentials;
let merchantId: string;
let tokenId: string;

beforeAll(async () => {
  stack = await createTestStack();
  creds = await stack.createAccount('Acme');
  [merchantId, tokenId] = await Promise.all([createMerchant(stack, creds), createCardToken(stack, creds)]);
});
afterAll(() => stack?.close());

describe('smoke', () => {
  it('voids and refunds', async () => {
    const paid = await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId, amount: '1000' }));
    const id = paid.body.data.id;
    const partial = await postPayment(stack, creds, refundBody(id, '300'));
    console.log(JSON.stringify(partial.body, null, 1));
    const got = await stack.call('GET', `/payments/${id}`, { as: creds });
    console.log(JSON.stringify(got.body, null, 1));
    const paid2 = await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId, amount: '1000' }));
    const v = await postPayment(stack, creds, refundBody(paid2.body.data.id, '1000'));
    console.log(JSON.stringify(v.body, null, 1));
    expect(v.status).toBe(201);
  });
});
