import { createLogger } from '@pps/shared/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryJobDeps } from '../../services/webhooks/src/delivery/delivery-deps';
import { attemptDelivery } from '../../services/webhooks/src/delivery/delivery-job';
import { captureBody, newRequestId, postPayment, refundBody, tokenv3Body } from '../fixtures/payments';
import { startReceiver, verifyReceived } from '../fixtures/receiver';
import { createWorld } from '../fixtures/world';
import { type Credentials, createTestStack, type TestStack } from '../harness';
import { waitFor } from '../wait';

/**
 * The statements the hot paths send to PostgreSQL, counted: a regression shows in CI as a number, never as a time
 * (docs/decisions.md, "Performance of the payment path"; bench figures live in bench/results). Begin and commit
 * count as statements.
 */

const sent: string[] = [];
const batchedSent: string[] = [];
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

/** A stack of its own whose statements go to `sent`, for the group commits' counts. */
const batchedStack = (sent: string[]) =>
  createTestStack({
    poolSize: 4,
    // Long enough for every request's checks to end before its batch goes (one batch per phase, or two).
    env: { GROUP_COMMIT_WAIT_MS: '100' },
    // postgres.js reads the array types once per new connection (pg_catalog): the pool's set-up, not a request's.
    onQuery: (query) => {
      if (!query.includes('pg_catalog')) sent.push(query.replace(/\s+/g, ' ').trim());
    },
  });

describe('statements and round trips per request', () => {
  it('a new tokenv3 payment with a requestId, and its replay', async () => {
    const body = tokenv3Body({ merchantId, tokenId, requestId: newRequestId() });
    // Two commits since the processor is called with no transaction open (docs/design.md, Idempotency and
    // concurrency; issue 24), where one did before (6 statements in 2 round trips; 11 in 11 at first, then 9 in 5:
    // docs/decisions.md, "Performance of the payment path"). Both are group-committed: a payment alone is a batch of
    // one, and the statements below are a batch's whatever its size (the next test).
    // The checks: merchants, token (no transaction; batched with concurrent payments' too). Phase 1: begin, claim
    // the key naming the payment | claim the record `processing`, commit (the holders are read only for a key the
    // claim did not take). Phase 3: begin, take the record's claim, its merchant's AVS mode | one statement writing
    // the record with its outcome, its event and its capture posting (an approval stores no answer on the key),
    // then commit.
    expect(await statementsOf(() => postPayment(stack, creds, body), 201)).toEqual({ statements: 11, trips: 5 });
    // The checks | begin, the claim finds the key held | its holder, with its payment's first event (the answer) |
    // commit: a round trip more than when the holders rode with every claim, which cost every new payment a read.
    expect(await statementsOf(() => postPayment(stack, creds, body), 201)).toEqual({ statements: 6, trips: 4 });
  });

  it('concurrent new payments: a batch costs the same statements whatever its size (group commit)', async () => {
    const batched = await batchedStack(batchedSent);
    try {
      const world = await createWorld(batched, { account: 'Group commit' });
      await postPayment(batched, world.creds, tokenv3Body({ ...world, requestId: newRequestId() }));
      batchedSent.length = 0;
      const count = 12;
      const responses = await Promise.all(
        Array.from({ length: count }, () =>
          postPayment(batched, world.creds, tokenv3Body({ ...world, requestId: newRequestId() })),
        ),
      );
      expect(responses.map((response) => response.status)).toEqual(Array(count).fill(201));
      const starting = (prefix: string) => batchedSent.filter((query) => query.startsWith(prefix)).length;
      const reads = starting('select "id", "account_id", "customer_id"');
      const claims = starting('insert into idempotency_keys');
      const outcomes = starting('with w1 as (insert into payments');
      console.log(
        `${count} payments: ${batchedSent.length} statements; batches: ${reads} of checks, ${claims} of claims, ${outcomes} of outcomes`,
      );
      expect(claims).toBeLessThanOrEqual(2);
      expect(outcomes).toBeLessThanOrEqual(2);
      expect(reads).toBeLessThanOrEqual(2);
      // Per batch of checks, two reads (the merchants, the cards); per batch of claims, four statements (begin, the
      // claim, the claimed records, commit), and of outcomes five (begin, the claims taken, the AVS modes, the
      // writes, commit).
      expect(batchedSent.length).toBe(2 * reads + 4 * claims + 5 * outcomes);
      expect(starting('begin')).toBe(claims + outcomes);
      expect(starting('commit')).toBe(claims + outcomes);
    } finally {
      await batched.close();
    }
  });

  it('a capture and a refund: the parents and their children with the claims, then every write at once', async () => {
    const authorize = async () =>
      (
        await postPayment(
          stack,
          creds,
          tokenv3Body({ merchantId, tokenId, requestId: newRequestId(), attributes: { capture: false } }),
        )
      ).body.data.id as string;
    const capture = (id: string) => () => postPayment(stack, creds, captureBody(id, undefined, newRequestId()));
    const refund = (id: string) => () => postPayment(stack, creds, refundBody(id, '100', newRequestId()));
    const warm = await authorize(); // the statements prepared on the connection
    await capture(warm)();
    await refund(warm)();
    const parent = await authorize();
    // Group-committed: a capture alone is a batch of one, and these are a batch's statements whatever its size.
    // Begin, claim the key, read its holder, lock the parent, read its children | the parents' events (their
    // sequences counted on), one statement writing the records, their postings, their events, the parents' changes
    // and the stored answers, commit. It was 11 statements in 8 round trips, each write awaited in turn.
    expect(await statementsOf(capture(parent), 201)).toEqual({ statements: 8, trips: 2 });
    expect(await statementsOf(refund(parent), 201)).toEqual({ statements: 8, trips: 2 });
  });

  it('concurrent captures: a batch costs the same statements whatever its size (group commit)', async () => {
    const operationsSent: string[] = [];
    const batched = await batchedStack(operationsSent);
    try {
      const world = await createWorld(batched, { account: 'Group commit of operations' });
      const authorize = async () =>
        (
          await postPayment(
            batched,
            world.creds,
            tokenv3Body({ ...world, requestId: newRequestId(), attributes: { capture: false } }),
          )
        ).body.data.id as string;
      const capture = async (id: string) =>
        postPayment(batched, world.creds, captureBody(id, undefined, newRequestId()));
      await capture(await authorize());
      const count = 12;
      const parents = await Promise.all(Array.from({ length: count }, authorize));
      operationsSent.length = 0;
      const responses = await Promise.all(parents.map(capture));
      expect(responses.map((response) => response.status)).toEqual(Array(count).fill(201));
      const batches = operationsSent.filter((query) => query === 'begin').length;
      console.log(`${count} captures: ${operationsSent.length} statements in ${batches} batches`);
      expect(batches).toBeLessThanOrEqual(2);
      // Per batch: begin, the claims, their holders, the parents locked, their children, the parents' events, the
      // rest of the writes, commit.
      expect(operationsSent.length).toBe(8 * batches);
    } finally {
      await batched.close();
    }
  });

  it('GET /payments/{id}', async () => {
    const created = await postPayment(stack, creds, tokenv3Body({ merchantId, tokenId }));
    const get = () => stack.call('GET', `/payments/${created.body.data.id}`, { as: creds });
    // The payment and its children, together.
    expect(await statementsOf(get, 200)).toEqual({ statements: 2, trips: 1 });
  });
});

describe('statements of a webhook delivery', () => {
  it("a first attempt reads nothing more: the relay's claim carried what it needs", async () => {
    const webhooksSent: string[] = [];
    const receiver = await startReceiver();
    const withWebhooks = await createTestStack({
      webhooks: true,
      onQuery: (query) => webhooksSent.push(query.replace(/\s+/g, ' ').trim()),
    });
    try {
      const world = await createWorld(withWebhooks, { account: 'Statements of a delivery' });
      const created = await withWebhooks.call('POST', '/webhooks', {
        as: world.creds,
        body: { data: { type: 'webhooks', attributes: { url: receiver.url('/hooks'), events: ['payment.created'] } } },
      });
      expect(created.status).toBe(201);
      webhooksSent.length = 0;
      const payment = await postPayment(withWebhooks, world.creds, tokenv3Body(world));
      const [request] = await waitFor(() => receiver.at('/hooks'), {
        until: (list) => list.length > 0,
        what: "the payment's delivery",
      });
      const event = verifyReceived(created.body.data.attributes.secret, request!);
      expect(event).toMatchObject({ type: 'payment.created', data: { id: payment.body.data.id } });
      await waitFor(
        () =>
          withWebhooks.sql`select status from webhook_deliveries where event_id = ${request!.headers['webhook-id'] as string}`,
        {
          until: (rows) => rows[0]?.status === 'succeeded',
          what: 'the attempt recorded',
        },
      );
      const touching = webhooksSent.filter((query) => /webhook_deliveries/.test(query));
      // The fan-out's insert and the attempt's record; the relay's sweeps read their partial indexes, never a
      // delivery by id. A job's attempt loads its delivery (`from webhook_deliveries d join …`); a first one does not.
      expect(touching.some((query) => query.startsWith('insert into webhook_deliveries'))).toBe(true);
      expect(touching.some((query) => query.includes('update webhook_deliveries d set attempts'))).toBe(true);
      expect(touching.filter((query) => query.includes('from webhook_deliveries d join'))).toEqual([]);
    } finally {
      await withWebhooks.close();
      await receiver.close();
    }
  });

  it('a job for a slow endpoint whose slots are all taken steps aside before reading anything', async () => {
    const deps = deliveryJobDeps({ config: stack.config, db: stack.db, log: createLogger({ level: 'silent' }) });
    const slots = deps.endpointSlots;
    const limit = stack.config.WEBHOOK_ENDPOINT_CONCURRENCY;
    try {
      // The endpoint answered in 2 s, and all its slots are taken.
      expect(await slots.acquire('whk_slow', 0)).toBe(true);
      slots.release('whk_slow', 2000);
      for (let i = 0; i < limit; i++) expect(await slots.acquire('whk_slow', 0)).toBe(true);
      const attempt = () => attemptDelivery(deps, { deliveryId: 'dlv_absent', endpointId: 'whk_slow' }, false);

      sent.length = 0;
      expect(await attempt()).toMatchObject({ kind: 'busy', slow: true });
      expect(sent).toEqual([]);
      // A slot free: the job reads its delivery (gone, so it is skipped).
      slots.release('whk_slow', 2000);
      expect(await attempt()).toEqual({ kind: 'skipped' });
      expect(sent.filter((query) => query.includes('from webhook_deliveries d join'))).toHaveLength(1);
    } finally {
      await deps.agent.close();
    }
  });
});
