import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRequestId, postPayment, refundBody, tokenv3Body } from '../fixtures/payments';
import { createWorld } from '../fixtures/world';
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';

/**
 * Group commit as a client meets it (docs/design.md, The payment write path): concurrent payments share their
 * batches, yet each is answered alone. A waiting time long enough that a burst lands in one batch per phase makes
 * the batches certain; the refusals are made real with triggers on this test's own database. Operations on existing
 * payments (refunds here) are group-committed the same way.
 */
let stack: TestStack;
let creds: Credentials;
let merchantId: string;
let tokenId: string;

beforeAll(async () => {
  stack = await createTestStack({ env: { GROUP_COMMIT_WAIT_MS: '100' } });
  ({ creds, merchantId, tokenId } = await createWorld(stack, { account: 'Batches' }));
});
afterAll(() => stack?.close());

const pay = (options: { amount?: string; requestId?: string } = {}) =>
  postPayment(stack, creds, tokenv3Body({ merchantId, tokenId, requestId: newRequestId(), ...options }));
/** The record a key names: in `payments` once recorded, in `payment_claims` (`processing`) until then. */
const storedFor = async (requestId: string) =>
  stack.sql`select p.id, p.status from payments p join idempotency_keys k on k.payment_id = p.id
      where k.request_id = ${requestId}
    union all select c.id, c.status from payment_claims c join idempotency_keys k on k.payment_id = c.id
      where k.request_id = ${requestId}`;

/** The mean batch size of a phase so far, from `/metrics`. */
async function meanBatch(phase: 'claim' | 'outcome' | 'operation') {
  const text = (await stack.call('GET', '/metrics')).body as string;
  const value = (name: string) =>
    Number(text.match(new RegExp(`^pps_group_commit_batch_size_${name}\\{phase="${phase}"\\} (\\S+)$`, 'm'))?.[1]);
  return value('sum') / value('count');
}

/**
 * Runs `body` while a trigger refuses the rows of `table` that `condition` names, on `event`: a refusal no request
 * check foresees (a constraint an operator added), made real on this test's own database. Phase 1 inserts a new
 * payment's claim (`payment_claims`), phase 3 its record (`payments`).
 */
async function whileRefusing(
  name: string,
  on: { event: 'insert' | 'update'; table: 'payments' | 'payment_claims' },
  condition: string,
  body: () => Promise<void>,
) {
  await stack.sql.unsafe(`
    create function ${name}() returns trigger language plpgsql as $$
    begin
      if ${condition} then raise exception '${name}' using errcode = '23514'; end if;
      return new;
    end $$;
    create trigger ${name} before ${on.event} on ${on.table} for each row execute function ${name}()`);
  try {
    await body();
  } finally {
    await stack.sql.unsafe(`drop trigger ${name} on ${on.table}; drop function ${name}()`);
  }
}

describe('group-committed payments', () => {
  it('batches a burst, and answers each payment of it as if alone', async () => {
    const responses = await Promise.all(Array.from({ length: 16 }, (_, index) => pay({ amount: `${1000 + index}` })));
    expect(responses.map((response) => response.status)).toEqual(Array(16).fill(201));
    expect(responses.map((response) => response.body.data.attributes.transaction.amount)).toEqual(
      Array.from({ length: 16 }, (_, index) => `${1000 + index}`),
    );
    expect(new Set(responses.map((response) => response.body.data.id)).size).toBe(16);
    expect(await meanBatch('claim')).toBeGreaterThan(1);
    expect(await meanBatch('outcome')).toBeGreaterThan(1);
  });

  it('claims a key given twice in one batch once: the other request is told it is in flight, or reused', async () => {
    const requestId = newRequestId();
    const responses = await Promise.all([
      pay({ requestId, amount: '2500' }),
      pay({ requestId, amount: '2500' }),
      pay({ requestId, amount: '2600' }),
      pay(),
      pay(),
    ]);
    const keyed = responses.slice(0, 3);
    const made = keyed.filter((response) => response.status === 201);
    expect(made).toHaveLength(1);
    const winner = made[0]!.body.data.attributes.transaction.amount;
    for (const [index, response] of keyed.entries()) {
      if (response === made[0]) continue;
      const sameBody = (index < 2 ? '2500' : '2600') === winner;
      expectError(response, 409, sameBody ? 'idempotency_key_in_use' : 'idempotency_key_reused', '/data/requestId');
    }
    expect(responses.slice(3).map((response) => response.status)).toEqual([201, 201]);
    expect((await storedFor(requestId)).map((row) => row.id)).toEqual([made[0]!.body.data.id]);
  });

  it("fails a payment whose record is refused alone, stores nothing of it, and makes its neighbours'", async () => {
    await whileRefusing(
      'refuse_amount',
      { event: 'insert', table: 'payment_claims' },
      'new.amount = 6666',
      async () => {
        const refusedKey = newRequestId();
        const keys = Array.from({ length: 5 }, () => newRequestId());
        const responses = await Promise.all([
          ...keys.slice(0, 2).map((requestId) => pay({ requestId })),
          pay({ requestId: refusedKey, amount: '6666' }),
          ...keys.slice(2).map((requestId) => pay({ requestId })),
        ]);
        expect(responses.map((response) => response.status)).toEqual([201, 201, 500, 201, 201, 201]);
        for (const requestId of keys) expect(await storedFor(requestId)).toHaveLength(1);
        // Nothing of it: no record, and its key is free, so the client's retry goes through once the cause is gone.
        expect(await stack.sql`select 1 from idempotency_keys where request_id = ${refusedKey}`).toHaveLength(0);
        expect(await stack.sql`select 1 from payment_claims where amount = 6666`).toHaveLength(0);
        expect(await stack.sql`select 1 from payments where amount = 6666`).toHaveLength(0);
      },
    );
  });

  it("fails a payment whose outcome is refused alone (left to recovery), and records its neighbours'", async () => {
    await whileRefusing('refuse_outcome', { event: 'insert', table: 'payments' }, 'new.amount = 7777', async () => {
      const refusedKey = newRequestId();
      const keys = Array.from({ length: 4 }, () => newRequestId());
      const responses = await Promise.all([
        ...keys.slice(0, 2).map((requestId) => pay({ requestId })),
        pay({ requestId: refusedKey, amount: '7777' }),
        ...keys.slice(2).map((requestId) => pay({ requestId })),
      ]);
      expect(responses.map((response) => response.status)).toEqual([201, 201, 500, 201, 201]);
      for (const requestId of keys) {
        expect((await storedFor(requestId)).map((row) => row.status)).toEqual(['pending']);
      }
      // Claimed and charged, its outcome not recorded: `processing`, for recovery to finish; a retry meanwhile is a
      // 409 in flight, never a second charge.
      expect((await storedFor(refusedKey)).map((row) => row.status)).toEqual(['processing']);
      expectError(
        await pay({ requestId: refusedKey, amount: '7777' }),
        409,
        'idempotency_key_in_use',
        '/data/requestId',
      );
    });
  });
});

describe('group-committed operations on payments', () => {
  const refund = (parentPaymentId: string, amount: string, requestId = newRequestId()) =>
    postPayment(stack, creds, refundBody(parentPaymentId, amount, requestId));
  const payments = async (count: number) =>
    Promise.all(Array.from({ length: count }, async () => (await pay({ amount: '1000' })).body.data.id as string));

  it('batches a burst of refunds of different payments, and answers each as if alone', async () => {
    const parents = await payments(8);
    const responses = await Promise.all(parents.map((id, index) => refund(id, `${10 + index}`)));
    expect(responses.map((response) => response.status)).toEqual(Array(8).fill(201));
    expect(responses.map((response) => response.body.data.attributes.parentPaymentId)).toEqual(parents);
    expect(responses.map((response) => response.body.data.attributes.transaction.amount)).toEqual(
      parents.map((_, index) => `${10 + index}`),
    );
    expect(await meanBatch('operation')).toBeGreaterThan(1);
  });

  it("fails a refund whose record is refused alone, stores nothing of it, and makes its neighbours'", async () => {
    const refunds = { event: 'insert', table: 'payments' } as const;
    await whileRefusing('refuse_refund', refunds, "new.payment_type = 'refund' and new.amount = 66", async () => {
      const [refusedParent, ...parents] = (await payments(5)) as [string, ...string[]];
      const refusedKey = newRequestId();
      const responses = await Promise.all([
        ...parents.map((id) => refund(id, '10')),
        refund(refusedParent, '66', refusedKey),
      ]);
      expect(responses.map((response) => response.status)).toEqual([201, 201, 201, 201, 500]);
      const children = await stack.sql`
        select parent_payment_id from payments where parent_payment_id in ${stack.sql([refusedParent, ...parents])}`;
      expect(children.map((row) => row.parent_payment_id).sort()).toEqual([...parents].sort());
      // Nothing of it: its key is free, so the client's retry goes through once the cause is gone.
      expect(await stack.sql`select 1 from idempotency_keys where request_id = ${refusedKey}`).toHaveLength(0);
      const [parent] = await stack.sql`select status from payments where id = ${refusedParent}`;
      expect(parent?.status).toBe('pending');
    });
  });
});
