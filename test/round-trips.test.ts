import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRequestId, postPayment, tokenv3Body } from './fixtures/payments';
import { createWorld } from './fixtures/world';
import { type Credentials, createTestStack, type TestStack } from './harness';

/**
 * The statements the hot paths send to PostgreSQL, counted: a regression shows in CI as a number, never as a time
 * (docs/decisions.md, "Performance of the payment path"; bench figures live in bench/results). Begin and commit
 * count as statements.
 */

const sent: string[] = [];
/** Statements handed to the connection in one turn of the event loop go out in one write: one round trip. */
let trips = 0;
let tripOpen = false;
let stack: TestStack;
let creds: Credentials;
let merchantId: string;
let tokenId: string;

beforeAll(async () => {
  stack = await createTestStack({
    // One connection: every statement is prepared on it after the warm-up, so none waits for a Describe.
    poolSize: 1,
    onQuery: (query) => {
      sent.push(query.replace(/\s+/g, ' ').trim());
      if (tripOpen) return;
      tripOpen = true;
      trips += 1;
      setImmediate(() => {
        tripOpen = false;
      });
    },
  });
  ({ creds, merchantId, tokenId } = await createWorld(stack, { account: 'Round trips' }));
  // Warm: the gateway's credential cache and the prepared statements, so only the payment's own are counted.
  await postPayment(stack, creds, tokenv3Body({ merchantId, tokenId, requestId: newRequestId() }));
  await stack.call(
    'GET',
    `/payments/${(await postPayment(stack, creds, tokenv3Body({ merchantId, tokenId }))).body.data.id}`,
    { as: creds },
  );
});
afterAll(() => stack?.close());

async function statementsOf(call: () => Promise<{ status: number }>, expected: number) {
  sent.length = 0;
  trips = 0;
  const response = await call();
  expect(response.status).toBe(expected);
  const statements = [...sent];
  console.log(
    `${statements.length} statements in ${trips} round trips\n  ${statements.map((q) => q.slice(0, 90)).join('\n  ')}`,
  );
  return { statements: statements.length, trips };
}

describe('statements and round trips per request', () => {
  it('a new tokenv3 payment with a requestId, and its replay', async () => {
    const body = tokenv3Body({ merchantId, tokenId, requestId: newRequestId() });
    // Two commits since the processor is called with no transaction open (docs/design.md, Idempotency and
    // concurrency; issue 24), where one did before (6 statements in 2 round trips; 11 in 11 at first, then 9 in 5:
    // docs/decisions.md, "Performance of the payment path"). Group commit, the next step, shares them among payments.
    // Phase 1: begin, claim the key, merchant, token | one statement inserting the record `processing` and naming it
    // on the key, then commit. Phase 3: begin, lock the record, its merchant's AVS mode | one statement writing the
    // outcome, its event, its capture posting and the stored answer, then commit.
    expect(await statementsOf(() => postPayment(stack, creds, body), 201)).toEqual({ statements: 11, trips: 4 });
    // begin, the claim finds the stored answer (the reads sent behind it are dropped) | commit.
    expect(await statementsOf(() => postPayment(stack, creds, body), 201)).toEqual({ statements: 5, trips: 2 });
  });

  it('GET /payments/{id}', async () => {
    const created = await postPayment(stack, creds, tokenv3Body({ merchantId, tokenId }));
    const get = () => stack.call('GET', `/payments/${created.body.data.id}`, { as: creds });
    // The payment and its children, together.
    expect(await statementsOf(get, 200)).toEqual({ statements: 2, trips: 1 });
  });
});
