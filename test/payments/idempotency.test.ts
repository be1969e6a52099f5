import { deleteExpiredIdempotencyKeys } from '@pps/payments';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../fixtures/merchants';
import { cards, createCardToken, newRequestId, postPayment, refundBody, tokenv3Body } from '../fixtures/payments';
import { createWorld } from '../fixtures/world';
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';

let stack: TestStack;
let creds: Credentials;
let other: Credentials;
let merchantId: string;
let tokenId: string;

beforeAll(async () => {
  stack = await createTestStack();
  ({ creds, other, merchantId, tokenId } = await createWorld(stack, { account: 'Acme', other: 'Globex' }));
});
afterAll(() => stack?.close());

const pay = (body: unknown, as: Credentials = creds) => postPayment(stack, as, body);
const paymentsOf = async (requestId: string) =>
  stack.sql`select p.id from payments p join idempotency_keys k on k.payment_id = p.id where k.request_id = ${requestId}`;

describe('idempotent POST /payments', () => {
  it('replays the first response, status and body, with Idempotent-Replayed: true', async () => {
    const requestId = newRequestId();
    const body = tokenv3Body({ merchantId, tokenId, requestId });
    const first = await pay(body);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // The same body with its keys in another order is the same request.
    const reordered = { data: { attributes: body.data.attributes, requestId, type: 'payments' } };
    const replay = await pay(reordered);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect((await paymentsOf(requestId)).map((row) => row.id)).toEqual([first.body.data.id]);
  });

  it("replays an approval from the payment's first event, as it was, after the payment changed", async () => {
    const requestId = newRequestId();
    const body = tokenv3Body({ merchantId, tokenId, requestId });
    const first = await pay(body);
    expect(first.status).toBe(201);
    // The 201 is not stored on the key a second time: the first event holds the resource it answered with.
    const [key] = await stack.sql`
      select response_status, response_body from idempotency_keys where request_id = ${requestId}`;
    expect(key).toEqual({ response_status: null, response_body: null });
    // A full refund on the processing day voids it: the payment reads `voided` from now on.
    expect((await pay(refundBody(first.body.data.id, '1000'))).status).toBe(201);
    const replay = await pay(body);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    const now = await stack.call('GET', `/payments/${first.body.data.id}`, { as: creds });
    expect([now.body.data.attributes.status, first.body.data.attributes.status]).toEqual(['voided', 'pending']);
  });

  it('matches the requestId case-insensitively', async () => {
    const requestId = newRequestId();
    const first = await pay(tokenv3Body({ merchantId, tokenId, requestId }));
    const replay = await pay(tokenv3Body({ merchantId, tokenId, requestId: requestId.toUpperCase() }));
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data.id).toBe(first.body.data.id);
  });

  it('replays a stored 402 decline without charging again', async () => {
    const declined = await createCardToken(stack, creds, cards.insufficientFunds);
    const requestId = newRequestId();
    const body = tokenv3Body({ merchantId, tokenId: declined, requestId });
    const first = await pay(body);
    expectError(first, 402, 'card_declined');
    const replay = await pay(body);
    expect(replay.status).toBe(402);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    const rows = await stack.sql`select id from payments where token_id = ${declined}`;
    expect(rows).toHaveLength(1);
  });

  it('409s the same requestId with a different body', async () => {
    const requestId = newRequestId();
    expect((await pay(tokenv3Body({ merchantId, tokenId, requestId }))).status).toBe(201);
    const res = await pay(tokenv3Body({ merchantId, tokenId, requestId, amount: '2000' }));
    expectError(res, 409, 'idempotency_key_reused', '/data/requestId');
  });

  it('scopes keys to the account', async () => {
    const requestId = newRequestId();
    const first = await pay(tokenv3Body({ merchantId, tokenId, requestId }));
    const otherMerchant = await createMerchant(stack, other);
    const otherToken = await createCardToken(stack, other);
    const second = await pay(tokenv3Body({ merchantId: otherMerchant, tokenId: otherToken, requestId }), other);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body.data.id).not.toBe(first.body.data.id);
  });

  it('400s a requestId that is not a UUID', async () => {
    const res = await pay(tokenv3Body({ merchantId, tokenId, requestId: 'order-42' }));
    expectError(res, 400, 'invalid_field', '/data/requestId');
  });

  it('does not store failures that made nothing: a later valid request with the key goes through', async () => {
    const requestId = newRequestId();
    expectError(await pay(tokenv3Body({ merchantId, tokenId, requestId, amount: '1' })), 400, 'invalid_field');
    expectError(await pay(tokenv3Body({ merchantId: 'mer_missing', tokenId, requestId })), 404, 'merchant_not_found');
    const keys = await stack.sql`select 1 from idempotency_keys where request_id = ${requestId}`;
    expect(keys).toHaveLength(0);
    const res = await pay(tokenv3Body({ merchantId, tokenId, requestId }));
    expect(res.status).toBe(201);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
  });

  it('makes exactly one payment and one capture posting out of 50 concurrent duplicates', async () => {
    const requestId = newRequestId();
    const body = tokenv3Body({ merchantId, tokenId, requestId, amount: '4321' });
    const all = await Promise.all(Array.from({ length: 50 }, () => pay(body)));
    // A duplicate that came while the first was between its phases is a 409 `idempotency_key_in_use` (retry later);
    // one after it replays the 201. Never a second payment.
    const busy = all.filter((res) => res.status === 409);
    for (const res of busy) expect(res.body.errors[0].code).toBe('idempotency_key_in_use');
    const responses = all.filter((res) => res.status !== 409);
    expect(responses.map((res) => res.status)).toEqual(Array(50 - busy.length).fill(201));
    const ids = new Set(responses.map((res) => res.body.data.id));
    expect(ids.size).toBe(1);
    expect(responses.filter((res) => res.headers.get('idempotent-replayed') === 'true')).toHaveLength(
      responses.length - 1,
    );
    const [paymentId] = [...ids];
    // Once it is recorded, every retry replays it.
    expect((await pay(body)).body.data.id).toBe(paymentId);
    const rows = await stack.sql`select id from payments where account_id = ${creds.accountId} and amount = 4321`;
    expect(rows.map((row) => row.id)).toEqual([paymentId]);
    const postings = await stack.sql`
      select count(distinct posting_id)::int as postings from ledger_entries where payment_id = ${paymentId!} and kind = 'capture'`;
    expect(postings[0]!.postings).toBe(1);
    const events = await stack.sql`select type from events where resource_id = ${paymentId!}`;
    expect(events.map((event) => event.type)).toEqual(['payment.created']);
  });
});

describe('deleteExpiredIdempotencyKeys', () => {
  it('removes keys older than the TTL only, after which the key is new again', async () => {
    const oldKey = newRequestId();
    const freshKey = newRequestId();
    const first = await pay(tokenv3Body({ merchantId, tokenId, requestId: oldKey }));
    await pay(tokenv3Body({ merchantId, tokenId, requestId: freshKey }));
    await stack.sql`update idempotency_keys set created_at = now() - interval '8 days' where request_id = ${oldKey}`;
    const removed = await deleteExpiredIdempotencyKeys(stack.db, new Date(), 7);
    expect(removed).toBe(1);
    const left = await stack.sql`select request_id from idempotency_keys where request_id in (${oldKey}, ${freshKey})`;
    expect(left.map((row) => row.request_id)).toEqual([freshKey]);
    const again = await pay(tokenv3Body({ merchantId, tokenId, requestId: oldKey }));
    expect(again.status).toBe(201);
    expect(again.body.data.id).not.toBe(first.body.data.id);
  });

  it('treats a key past its TTL as new even before the cleanup runs', async () => {
    const requestId = newRequestId();
    const first = await pay(tokenv3Body({ merchantId, tokenId, requestId }));
    await stack.sql`update idempotency_keys set created_at = now() - interval '8 days' where request_id = ${requestId}`;
    const again = await pay(tokenv3Body({ merchantId, tokenId, requestId, amount: '1500' }));
    expect(again.status).toBe(201);
    expect(again.body.data.id).not.toBe(first.body.data.id);
  });

  it('treats the key of a refund past its TTL as new: the refund is made again, not replayed', async () => {
    const parent = await pay(tokenv3Body({ merchantId, tokenId, amount: '1000' }));
    const requestId = newRequestId();
    const first = await pay(refundBody(parent.body.data.id, '100', requestId));
    expect(first.status).toBe(201);
    await stack.sql`update idempotency_keys set created_at = now() - interval '8 days' where request_id = ${requestId}`;
    const again = await pay(refundBody(parent.body.data.id, '200', requestId));
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.body.data.id).not.toBe(first.body.data.id);
    expect(again.body.data.attributes.transaction.amount).toBe('200');
    const [key] = await stack.sql`select payment_id from idempotency_keys where request_id = ${requestId}`;
    expect(key?.payment_id).toBe(again.body.data.id);
  });
});
