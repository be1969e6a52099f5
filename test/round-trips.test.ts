import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from './fixtures/merchants';
import { createCardToken, newRequestId, postPayment, tokenv3Body } from './fixtures/payments';
import { type Credentials, createTestStack, type TestStack } from './harness';

/**
 * The statements the hot paths send to PostgreSQL, counted: a regression shows in CI as a number, never as a time
 * (issue 11; bench figures live in bench/results). Begin and commit count as statements.
 */

const sent: string[] = [];
let stack: TestStack;
let creds: Credentials;
let merchantId: string;
let tokenId: string;

beforeAll(async () => {
  stack = await createTestStack({ onQuery: (query) => sent.push(query.replace(/\s+/g, ' ').trim()) });
  creds = await stack.createAccount('Round trips');
  [merchantId, tokenId] = await Promise.all([createMerchant(stack, creds), createCardToken(stack, creds)]);
  // Warm: the gateway's credential cache, so only the payment's own statements are counted.
  await postPayment(stack, creds, tokenv3Body({ merchantId, tokenId }));
});
afterAll(() => stack?.close());

async function statementsOf(call: () => Promise<{ status: number }>, expected: number) {
  sent.length = 0;
  const response = await call();
  expect(response.status).toBe(expected);
  return [...sent];
}

describe('statements per request', () => {
  it('a new tokenv3 payment with a requestId', async () => {
    const body = tokenv3Body({ merchantId, tokenId, requestId: newRequestId() });
    const statements = await statementsOf(() => postPayment(stack, creds, body), 201);
    console.log(
      `new payment: ${statements.length} statements\n  ${statements.map((q) => q.slice(0, 90)).join('\n  ')}`,
    );
    // begin + claim the key (sent together) | merchant + token (together) | insert the payment | ledger + event +
    // stored answer (together) | commit: 9 statements in 5 round trips (11 statements, 11 round trips before).
    expect(statements.length).toBe(9);
    const replay = await statementsOf(() => postPayment(stack, creds, body), 201);
    console.log(`replay: ${replay.length} statements\n  ${replay.map((q) => q.slice(0, 90)).join('\n  ')}`);
    // begin | the claim finds the stored answer | commit.
    expect(replay.length).toBe(3);
  });

  it('GET /payments/{id}', async () => {
    const created = await postPayment(stack, creds, tokenv3Body({ merchantId, tokenId }));
    const statements = await statementsOf(
      () => stack.call('GET', `/payments/${created.body.data.id}`, { as: creds }),
      200,
    );
    console.log(
      `get payment: ${statements.length} statements\n  ${statements.map((q) => q.slice(0, 90)).join('\n  ')}`,
    );
    expect(statements.length).toBe(2);
  });
});
