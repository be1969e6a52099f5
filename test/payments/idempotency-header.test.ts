import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRequestId, tokenv3Body } from '../fixtures/payments';
import { createWorld } from '../fixtures/world';
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';

/** The `Idempotency-Key` header of POST /payments: the same key as `data.requestId` (docs/api.md, Idempotency). */

let stack: TestStack;
let creds: Credentials;
let merchantId: string;
let tokenId: string;

beforeAll(async () => {
  stack = await createTestStack();
  ({ creds, merchantId, tokenId } = await createWorld(stack, { account: 'Acme' }));
});
afterAll(() => stack?.close());

/** POST /payments, with the key in the `Idempotency-Key` header when one is given. */
const pay = (body: unknown, key?: string) =>
  stack.call('POST', '/payments', { as: creds, body, headers: key === undefined ? {} : { 'Idempotency-Key': key } });
const paymentCount = async () =>
  (await stack.sql`select count(*)::int as n from payments where account_id = ${creds.accountId}`)[0]!.n as number;
const storedKeys = (...keys: string[]) =>
  stack.sql`select request_id from idempotency_keys where account_id = ${creds.accountId} and request_id in ${stack.sql(keys.map((key) => key.toLowerCase()))}`;

describe('POST /payments with the Idempotency-Key header', () => {
  it('alone: creates once, then replays the first response with Idempotent-Replayed: true', async () => {
    const key = newRequestId();
    const body = tokenv3Body({ merchantId, tokenId });
    const before = await paymentCount();
    const first = await pay(body, key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const replay = await pay(body, key.toUpperCase());
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(await paymentCount()).toBe(before + 1);
    expect((await storedKeys(key)).map((row) => row.request_id)).toEqual([key]);
  });

  it('is the same key as data.requestId: a body-keyed request replays by the header, and the other way round', async () => {
    const bodyKeyed = newRequestId();
    const first = await pay(tokenv3Body({ merchantId, tokenId, requestId: bodyKeyed }));
    expect(first.status).toBe(201);
    const byHeader = await pay(tokenv3Body({ merchantId, tokenId }), bodyKeyed);
    expect(byHeader.headers.get('idempotent-replayed')).toBe('true');
    expect(byHeader.body).toEqual(first.body);

    const headerKeyed = newRequestId();
    const second = await pay(tokenv3Body({ merchantId, tokenId }), headerKeyed);
    expect(second.status).toBe(201);
    const byBody = await pay(tokenv3Body({ merchantId, tokenId, requestId: headerKeyed }));
    expect(byBody.headers.get('idempotent-replayed')).toBe('true');
    expect(byBody.body).toEqual(second.body);
    expect(second.body.data.id).not.toBe(first.body.data.id);
  });

  it('with data.requestId naming the same key (in any case): one request, replayed by either alone', async () => {
    const key = newRequestId();
    const before = await paymentCount();
    const first = await pay(tokenv3Body({ merchantId, tokenId, requestId: key }), key.toUpperCase());
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await pay(tokenv3Body({ merchantId, tokenId, requestId: key }), key);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await pay(tokenv3Body({ merchantId, tokenId }), key)).body).toEqual(first.body);
    expect(await paymentCount()).toBe(before + 1);
  });

  it('400s a header naming another key than data.requestId, and stores nothing', async () => {
    const [bodyKey, headerKey] = [newRequestId(), newRequestId()];
    const before = await paymentCount();
    const res = await pay(tokenv3Body({ merchantId, tokenId, requestId: bodyKey }), headerKey);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      {
        status: '400',
        code: 'idempotency_key_mismatch',
        title: 'Bad Request',
        detail:
          'data.requestId and the Idempotency-Key header name different keys; send the key once, or the same in both',
        source: { pointer: '/data/requestId' },
      },
    ]);
    expect(typeof res.body.meta.requestId).toBe('string');
    expect(await paymentCount()).toBe(before);
    expect(await storedKeys(bodyKey, headerKey)).toHaveLength(0);
  });

  it('400s a header that is not a UUID on the parameter idempotency-key, and stores nothing', async () => {
    const before = await paymentCount();
    for (const value of ['order-42', '', `${newRequestId()}x`]) {
      const res = await pay(tokenv3Body({ merchantId, tokenId }), value);
      expect(res.status, value).toBe(400);
      expect(res.body.errors).toEqual([
        {
          status: '400',
          code: 'invalid_field',
          title: 'Bad Request',
          detail: 'idempotency-key header must be a UUID',
          source: { parameter: 'idempotency-key' },
        },
      ]);
    }
    // Beside a valid data.requestId too: the header is judged on its own.
    const requestId = newRequestId();
    const res = await pay(tokenv3Body({ merchantId, tokenId, requestId }), 'order-42');
    expect(res.body.errors[0]).toMatchObject({ code: 'invalid_field', source: { parameter: 'idempotency-key' } });
    expect(await paymentCount()).toBe(before);
    expect(await storedKeys(requestId)).toHaveLength(0);
  });

  it('409s the header key reused with another body, pointing at the header', async () => {
    const key = newRequestId();
    expect((await pay(tokenv3Body({ merchantId, tokenId }), key)).status).toBe(201);
    const res = await pay(tokenv3Body({ merchantId, tokenId, amount: '2000' }), key);
    const error = expectError(res, 409, 'idempotency_key_reused');
    expect(error.source).toEqual({ parameter: 'idempotency-key' });
    expect(error.detail).toContain('Idempotency-Key');
  });

  it('makes exactly one payment out of 30 concurrent duplicates keyed by the header', async () => {
    const key = newRequestId();
    const body = tokenv3Body({ merchantId, tokenId, amount: '4322' });
    const all = await Promise.all(Array.from({ length: 30 }, () => pay(body, key)));
    // In flight: 409 `idempotency_key_in_use` on the header (test/payments/idempotency.test.ts); after: the replay.
    const busy = all.filter((res) => res.status === 409);
    for (const res of busy) {
      expect(res.body.errors[0]).toMatchObject({
        code: 'idempotency_key_in_use',
        source: { parameter: 'idempotency-key' },
      });
    }
    const responses = all.filter((res) => res.status !== 409);
    expect(responses.map((res) => res.status)).toEqual(Array(30 - busy.length).fill(201));
    const ids = new Set(responses.map((res) => res.body.data.id));
    expect(ids.size).toBe(1);
    expect(responses.filter((res) => res.headers.get('idempotent-replayed') === 'true')).toHaveLength(
      responses.length - 1,
    );
    const rows = await stack.sql`select id from payments where account_id = ${creds.accountId} and amount = 4322`;
    expect(rows.map((row) => row.id)).toEqual([...ids]);
    const events = await stack.sql`select type from events where resource_id = ${[...ids][0]!}`;
    expect(events.map((event) => event.type)).toEqual(['payment.created']);
  });
});
