import { createDataCipher, SandboxProcessor } from '@pps/payments';
import { runSettlementPass } from '@pps/settlement';
import { createLogger } from '@pps/shared/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureBody, createPayment, postPayment, refundBody, setClock, tokenv3Body } from '../fixtures/payments';
import { createWorld, type World } from '../fixtures/world';
import { createTestStack, expectError, type TestStack } from '../harness';

/**
 * Authorizations that lapse (docs/api.md, Authorize now, capture later): the settlement pass voids them by each
 * account's clock, two passes at once void each once, and a capture racing the sweep ends one way only. The passes
 * run here directly (no settlement workers), so that nothing but the test decides when one runs.
 */
let stack: TestStack;

beforeAll(async () => {
  stack = await createTestStack();
});
afterAll(() => stack?.close());

const pass = (now: Date, options: { accountId?: string; batchSize?: number } = {}) =>
  runSettlementPass(
    {
      db: stack.db,
      config: stack.config,
      cipher: createDataCipher(stack.config),
      processor: new SandboxProcessor(),
      log: createLogger({ level: 'silent' }),
    },
    { now, batchSize: options.batchSize ?? 100, accountId: options.accountId },
  );

const authorize = async (world: World, amount = '10000') =>
  (
    await createPayment(
      stack,
      world.creds,
      tokenv3Body({ merchantId: world.merchantId, tokenId: world.tokenId!, amount, attributes: { capture: false } }),
    )
  ).body.data as { id: string; attributes: { authorizationExpiresAt: string } };

const row = async (id: string) =>
  (await stack.sql`select status, void_reason, voided_at from payments where id = ${id}`)[0]!;
const eventTypes = async (id: string) =>
  (await stack.sql`select type from events where resource_id = ${id} order by sequence`).map((event) => event.type);
const ledgerOf = (id: string) => stack.sql`select kind, amount::int from ledger_entries where payment_id = ${id}`;

describe('the settlement pass voids lapsed authorizations', () => {
  it('at authorizationExpiresAt and not before: voided, authorization_expired, payment.voided, nothing posted', async () => {
    const world = await createWorld(stack, { account: 'Lapsing hotel' });
    const authorization = await authorize(world);
    const expiresAt = new Date(authorization.attributes.authorizationExpiresAt);

    expect((await pass(new Date(expiresAt.getTime() - 1000), { accountId: world.creds.accountId })).expired).toBe(0);
    expect((await row(authorization.id)).status).toBe('authorized');

    expect((await pass(expiresAt, { accountId: world.creds.accountId })).expired).toBe(1);
    const read = (await stack.call('GET', `/payments/${authorization.id}`, { as: world.creds })).body.data;
    expect(read.attributes).toMatchObject({ status: 'voided', voidReason: 'authorization_expired' });
    // Voided at the clock the pass ran by.
    expect(read.attributes.updatedAt).toBe(expiresAt.toISOString());
    expect(await eventTypes(authorization.id)).toEqual(['payment.authorized', 'payment.voided']);
    const [voided] = await stack.sql`select payload from events where resource_id = ${authorization.id}
      and type = 'payment.voided'`;
    expect(voided!.payload.data).toMatchObject({ previousStatus: 'authorized', attributes: { status: 'voided' } });
    expect(await ledgerOf(authorization.id)).toHaveLength(0);
    const balance = await stack.call('GET', `/merchants/${world.merchantId}/balance`, { as: world.creds });
    expect(balance.body.data.attributes).toMatchObject({ pending: '0', available: '0', inTransit: '0' });

    // Swept or not, a capture of a lapsed authorization gets the same answer; a second pass finds nothing.
    const error = expectError(
      await postPayment(stack, world.creds, captureBody(authorization.id)),
      422,
      'authorization_expired',
      '/data/attributes/parentPaymentId',
    );
    expect(error.detail).toContain(expiresAt.toISOString());
    expect((await pass(new Date(expiresAt.getTime() + 86_400_000), { accountId: world.creds.accountId })).expired).toBe(
      0,
    );
    expect(await eventTypes(authorization.id)).toEqual(['payment.authorized', 'payment.voided']);
  });

  it("by each account's own clock: the pass over every account voids what lapsed on a clock ahead, nothing early", async () => {
    const [onTime, ahead] = await Promise.all([
      createWorld(stack, { account: 'Real clock' }),
      createWorld(stack, { account: 'Clock ahead' }),
    ]);
    const [fresh, lapsing] = await Promise.all([authorize(onTime), authorize(ahead)]);
    // Eight days ahead, with no settlement workers here: only the pass below can void it.
    await setClock(stack, ahead.creds, new Date(Date.now() + 8 * 86_400_000));
    // A capture by that clock is refused before any sweep.
    expectError(
      await postPayment(stack, ahead.creds, captureBody(lapsing.id)),
      422,
      'authorization_expired',
      '/data/attributes/parentPaymentId',
    );

    const result = await pass(new Date());
    expect(result.expired).toBeGreaterThanOrEqual(1);
    expect(await row(lapsing.id)).toMatchObject({ status: 'voided', void_reason: 'authorization_expired' });
    expect((await row(fresh.id)).status).toBe('authorized');
    // Voided at the moment of its account's clock the pass ran at, not the real one.
    expect(new Date((await row(lapsing.id)).voided_at).getTime()).toBeGreaterThan(Date.now() + 7 * 86_400_000);
  });

  it('two passes at once void each lapsed authorization exactly once', async () => {
    const world = await createWorld(stack, { account: 'Two sweepers' });
    const authorizations = await Promise.all(Array.from({ length: 40 }, () => authorize(world, '2000')));
    const later = new Date(Date.now() + 8 * 86_400_000);
    const results = await Promise.all([
      pass(later, { accountId: world.creds.accountId, batchSize: 7 }),
      pass(later, { accountId: world.creds.accountId, batchSize: 7 }),
    ]);
    expect(results[0]!.expired + results[1]!.expired).toBe(40);
    const ids = authorizations.map((authorization) => authorization.id);
    const [counts] = await stack.sql`
      select count(*) filter (where p.status = 'voided' and p.void_reason = 'authorization_expired')::int as voided,
        (select count(*)::int from events e where e.resource_id = any(${ids}) and e.type = 'payment.voided') as events,
        (select count(distinct e.resource_id)::int from events e
          where e.resource_id = any(${ids}) and e.type = 'payment.voided') as resources
      from payments p where p.id = any(${ids})`;
    expect(counts).toEqual({ voided: 40, events: 40, resources: 40 });
  });
});

describe('a capture racing the expiry sweep (real concurrent requests and pass)', () => {
  it('ends each authorization one way: captured and posted, or voided as lapsed and refused, never both', async () => {
    const world = await createWorld(stack, { account: 'Racing hotel' });
    const authorizations = await Promise.all(Array.from({ length: 16 }, () => authorize(world, '4000')));
    // The sweep runs by a clock past every expiry while the captures run by the account's, which is not: each side
    // believes it may act, and only the row lock and the conditional writes decide.
    const [sweep, ...captures] = await Promise.all([
      pass(new Date(Date.now() + 8 * 86_400_000), { accountId: world.creds.accountId, batchSize: 2 }),
      // Spread over the sweep's batches, so that some captures come before their batch and some after.
      ...authorizations.map(async (authorization, index) => {
        await new Promise((resolve) => setTimeout(resolve, index * 4));
        return postPayment(stack, world.creds, captureBody(authorization.id));
      }),
    ]);

    let voided = 0;
    for (const [index, authorization] of authorizations.entries()) {
      const capture = captures[index]!;
      const entries = await ledgerOf(authorization.id);
      const children = await stack.sql`select payment_type from payments where parent_payment_id = ${authorization.id}`;
      if (capture.status === 201) {
        expect(await row(authorization.id)).toMatchObject({ status: 'pending', void_reason: null });
        expect(await eventTypes(authorization.id)).toEqual(['payment.authorized', 'payment.captured']);
        expect(entries.map((entry) => entry.kind)).toEqual(['capture', 'capture', 'capture']);
        expect(children).toEqual([{ payment_type: 'capture' }]);
      } else {
        voided += 1;
        expectError(capture, 422, 'authorization_expired', '/data/attributes/parentPaymentId');
        expect(await row(authorization.id)).toMatchObject({ status: 'voided', void_reason: 'authorization_expired' });
        expect(await eventTypes(authorization.id)).toEqual(['payment.authorized', 'payment.voided']);
        expect(entries).toHaveLength(0);
        expect(children).toHaveLength(0);
      }
    }
    expect(sweep.expired).toBe(voided);
    const [ledger] = await stack.sql`select coalesce(sum(amount), 0)::int as total from ledger_entries`;
    expect(ledger!.total).toBe(0);
  });
});

describe('cancel after the sweep', () => {
  it('a refund of an authorization voided as lapsed is refused, and changes nothing', async () => {
    const world = await createWorld(stack, { account: 'Late cancel' });
    const authorization = await authorize(world, '3000');
    await pass(new Date(Date.now() + 8 * 86_400_000), { accountId: world.creds.accountId });
    const response = await postPayment(stack, world.creds, refundBody(authorization.id, '3000'));
    expect(response.status).toBe(422);
    expect(response.body.errors[0].source.pointer).toBe('/data/attributes/parentPaymentId');
    expect(await row(authorization.id)).toMatchObject({ status: 'voided', void_reason: 'authorization_expired' });
    expect(await stack.sql`select 1 from payments where parent_payment_id = ${authorization.id}`).toHaveLength(0);
  });
});
