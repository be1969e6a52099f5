import {
  type CardAuthorization,
  type CardAuthorizationRequest,
  recoverPayments,
  SandboxProcessor,
} from '@pps/payments';
import { createLogger } from '@pps/shared/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { achBody, newRequestId, postPayment, refundBody, tokenv3Body } from '../fixtures/payments';
import { createWorld } from '../fixtures/world';
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';
import { waitFor } from '../wait';

/**
 * New payments in three phases (docs/design.md, Idempotency and concurrency): the record is claimed `processing`
 * (one commit), the processor is called with no transaction open, the outcome is recorded (a second commit).
 */

const LATENCY_MS = 1000;

describe('with a processor answering in SANDBOX_LATENCY_MS, on a pool of 2 connections', () => {
  let stack: TestStack;
  let creds: Credentials;
  let merchantId: string;
  let tokenId: string;

  beforeAll(async () => {
    stack = await createTestStack({ poolSize: 2, env: { SANDBOX_LATENCY_MS: String(LATENCY_MS) } });
    ({ creds, merchantId, tokenId } = await createWorld(stack, { account: 'Phases' }));
  });
  afterAll(() => stack?.close());

  const processingIds = async (amount: number) =>
    (
      await stack.sql`select id from payment_claims where account_id = ${creds.accountId} and amount = ${amount}
        and status = 'processing'`
    ).map((row) => String(row.id));

  const inProcessing = (amount: number, count: number) =>
    waitFor(() => processingIds(amount), {
      what: `${count} payments of ${amount} cents processing`,
      until: (ids) => ids.length === count,
      intervalMs: 20,
    });

  it('shows a payment waiting for the processor as pending, and never lists it until it is decided', async () => {
    const paying = postPayment(stack, creds, tokenv3Body({ merchantId, tokenId, amount: '1201' }));
    const [id] = await inProcessing(1201, 1);
    const read = await stack.call('GET', `/payments/${id}`, { as: creds });
    expect(read.status).toBe(200);
    expect(read.body.data.attributes.status).toBe('pending');
    const status = await stack.call('GET', `/payments/status/${id}`, { as: creds });
    expect(status.body.data.attributes.status).toBe('pending');
    const listed = await stack.call('GET', `/payments?id=${merchantId}`, { as: creds });
    expect(listed.body.data.map((item: { id: string }) => item.id)).not.toContain(id);
    const filtered = await stack.call('GET', `/payments?id=${merchantId}&status=pending`, { as: creds });
    expect(filtered.body.data.map((item: { id: string }) => item.id)).not.toContain(id);
    // Nothing to refund yet, and the refusal names the status as served.
    const refund = await postPayment(stack, creds, refundBody(id!, '1201'));
    expect(expectError(refund, 422, 'payment_not_refundable').detail).toContain('pending, awaiting the processor');
    // Nothing is recorded, posted or announced before the outcome: the claim is all there is.
    expect(await stack.sql`select 1 from payments where id = ${id!}`).toHaveLength(0);
    expect(await stack.sql`select 1 from ledger_entries where payment_id = ${id!}`).toHaveLength(0);
    expect(await stack.sql`select 1 from events where resource_id = ${id!}`).toHaveLength(0);

    const paid = await paying;
    expect(paid.status).toBe(201);
    expect(paid.body.data.id).toBe(id);
    // Recorded once, with its outcome, by the commit that took its claim.
    expect(await stack.sql`select status from payments where id = ${id!}`).toEqual([{ status: 'pending' }]);
    expect(await stack.sql`select 1 from payment_claims where id = ${id!}`).toHaveLength(0);
    const after = await stack.call('GET', `/payments?id=${merchantId}&status=pending`, { as: creds });
    expect(after.body.data.map((item: { id: string }) => item.id)).toContain(id);
  });

  it('answers a GET at once while payments wait for the processor (no connection is held meanwhile)', async () => {
    const earlier = await postPayment(stack, creds, tokenv3Body({ merchantId, tokenId, amount: '1202' }));
    expect(earlier.status).toBe(201);
    const started = performance.now();
    const paying = Promise.all(
      Array.from({ length: 4 }, () => postPayment(stack, creds, tokenv3Body({ merchantId, tokenId, amount: '1203' }))),
    );
    await inProcessing(1203, 4);
    const asked = performance.now();
    const read = await stack.call('GET', `/payments/${earlier.body.data.id}`, { as: creds });
    const readMs = performance.now() - asked;
    expect(read.status).toBe(200);
    const paid = await paying;
    expect(paid.map((res) => res.status)).toEqual([201, 201, 201, 201]);
    // Four processor calls on two connections took two rounds of the latency when each held one.
    expect(performance.now() - started).toBeGreaterThanOrEqual(LATENCY_MS);
    expect(readMs).toBeLessThan(LATENCY_MS / 2);
  });

  it('answers a replay while the first request is in flight 409 idempotency_key_in_use, and never charges twice', async () => {
    const requestId = newRequestId();
    const body = tokenv3Body({ merchantId, tokenId, amount: '1204', requestId });
    const first = postPayment(stack, creds, body);
    await inProcessing(1204, 1);
    const replay = await postPayment(stack, creds, body);
    expect(replay.status).toBe(409);
    expect(replay.headers.get('retry-after')).toBe('1');
    expect(expectError(replay, 409, 'idempotency_key_in_use').source).toEqual({ pointer: '/data/requestId' });

    const created = await first;
    expect(created.status).toBe(201);
    const again = await postPayment(stack, creds, body);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(created.body);
    // Each processor call follows its own record's phase 1: one record is one call.
    const rows = await stack.sql`select id from payments where account_id = ${creds.accountId} and amount = 1204`;
    expect(rows.map((row) => row.id)).toEqual([created.body.data.id]);
  });

  it('takes ACH debits in phases too', async () => {
    const paying = postPayment(stack, creds, achBody({ merchantId, amount: '1205' }));
    await inProcessing(1205, 1);
    const paid = await paying;
    expect(paid.status).toBe(201);
    expect(paid.body.data.attributes).toMatchObject({ status: 'pending', paymentType: 'ACH' });
  });
});

/** The sandbox, made to crash once around its call: before it gets the request, or after it answered. */
class CrashingProcessor extends SandboxProcessor {
  crash: 'before' | 'after' | undefined;

  override async authorizeCard(request: CardAuthorizationRequest): Promise<CardAuthorization> {
    const crash = this.crash;
    this.crash = undefined;
    if (crash === 'before') throw new Error('crashed before the processor got the request');
    const answer = await super.authorizeCard(request);
    if (crash === 'after') throw new Error('crashed after the processor answered');
    return answer;
  }
}

describe('recovery of payments left processing', () => {
  const processor = new CrashingProcessor();
  const log = createLogger({ level: 'silent' });
  let stack: TestStack;
  let creds: Credentials;
  let merchantId: string;
  let tokenId: string;

  beforeAll(async () => {
    stack = await createTestStack({ processor });
    ({ creds, merchantId, tokenId } = await createWorld(stack, { account: 'Recovery' }));
  });
  afterAll(() => stack?.close());

  const recover = (options: { processor?: SandboxProcessor; later?: number } = {}) =>
    recoverPayments(
      { db: stack.db, config: stack.config, log, processor: options.processor ?? processor },
      { now: new Date(Date.now() + (options.later ?? stack.config.PAYMENT_RECOVERY_AFTER_SECONDS + 1) * 1000) },
    );

  /** A payment whose request died between its phases: its claim `processing`, its key without an answer. */
  async function leftProcessing(crash: 'before' | 'after', amount: string, attributes?: Record<string, unknown>) {
    const body = tokenv3Body({ merchantId, tokenId, amount, requestId: newRequestId(), attributes });
    processor.crash = crash;
    expect((await postPayment(stack, creds, body)).status).toBe(500);
    const [row] = await stack.sql`select id, status from payment_claims where account_id = ${creds.accountId}
      and amount = ${Number(amount)}`;
    expect(row?.status).toBe('processing');
    expect(await stack.sql`select 1 from payments where id = ${String(row?.id)}`).toHaveLength(0);
    expectError(await postPayment(stack, creds, body), 409, 'idempotency_key_in_use');
    return { body, id: String(row!.id) };
  }

  it('records the answer the processor remembers, as the request would have, and the key replays it', async () => {
    const { body, id } = await leftProcessing('after', '1301');
    // Not before PAYMENT_RECOVERY_AFTER_SECONDS.
    expect(await recover({ later: 0 })).toEqual({ recorded: 0, abandoned: 0 });
    expect(await recover()).toEqual({ recorded: 1, abandoned: 0 });

    const replay = await postPayment(stack, creds, body);
    expect(replay.status).toBe(201);
    expect(replay.body.data).toMatchObject({ id, attributes: { status: 'pending', transaction: { code: '0' } } });
    const events = await stack.sql`select type from events where resource_id = ${id}`;
    expect(events.map((event) => event.type)).toEqual(['payment.created']);
    const postings = await stack.sql`
      select count(distinct posting_id)::int as postings from ledger_entries where payment_id = ${id} and kind = 'capture'`;
    expect(postings[0]!.postings).toBe(1);
    // Finished once: the claim is gone, and a second run finds nothing.
    expect(await stack.sql`select 1 from payment_claims where id = ${id}`).toHaveLength(0);
    expect(await recover()).toEqual({ recorded: 0, abandoned: 0 });
  });

  it('records an authorization (capture: false) as the request would have: authorized, its expiry, no posting', async () => {
    const { body, id } = await leftProcessing('after', '1304', { capture: false });
    expect(await recover()).toEqual({ recorded: 1, abandoned: 0 });
    const replay = await postPayment(stack, creds, body);
    expect(replay.status).toBe(201);
    const { attributes } = replay.body.data;
    expect(attributes).toMatchObject({ status: 'authorized', settleAt: null });
    // Seven days from when it was made, not from when recovery ran.
    expect(new Date(attributes.authorizationExpiresAt).getTime() - new Date(attributes.createdAt).getTime()).toBe(
      7 * 86_400_000,
    );
    const events = await stack.sql`select type from events where resource_id = ${id}`;
    expect(events.map((event) => event.type)).toEqual(['payment.authorized']);
    expect(await stack.sql`select 1 from ledger_entries where payment_id = ${id}`).toHaveLength(0);
  });

  it('fails a payment the processor never got (processing_abandoned); the retry gets that answer', async () => {
    const { body, id } = await leftProcessing('before', '1302');
    expect(await recover()).toEqual({ recorded: 0, abandoned: 1 });
    const replay = await postPayment(stack, creds, body);
    expect(replay.status).toBe(402);
    expect(expectError(replay, 402, 'processing_abandoned')).toBeDefined();
    expect(replay.body.meta.paymentId).toBe(id);
    const read = await stack.call('GET', `/payments/${id}`, { as: creds });
    expect(read.body.data.attributes).toMatchObject({
      status: 'failed',
      transaction: { code: 'processing_abandoned' },
    });
    const events = await stack.sql`select type from events where resource_id = ${id}`;
    expect(events.map((event) => event.type)).toEqual(['payment.failed']);
    expect(await stack.sql`select 1 from ledger_entries where payment_id = ${id}`).toHaveLength(0);
  });

  it('fails it in another process, whose sandbox remembers none of this one’s answers (documented)', async () => {
    const { id } = await leftProcessing('after', '1303');
    expect(await recover({ processor: new SandboxProcessor() })).toEqual({ recorded: 0, abandoned: 1 });
    const [row] = await stack.sql`select status, code from payments where id = ${id}`;
    expect(row).toEqual({ status: 'failed', code: 'processing_abandoned' });
  });
});
