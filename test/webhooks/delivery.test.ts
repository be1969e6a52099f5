import { setTimeout as sleep } from 'node:timers/promises';
import { newId } from '@pps/shared/ids';
import { createLogger } from '@pps/shared/logger';
import { jobs } from '@pps/shared/queues';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryJobDeps } from '../../services/webhooks/src/delivery/delivery-deps';
import { attemptDelivery } from '../../services/webhooks/src/delivery/delivery-job';
import { reclaimLapsedLeases, requeueStale } from '../../services/webhooks/src/relay/fan-out';
import { createPayment, postPayment, refundBody, tokenv3Body } from '../fixtures/payments';
import { type Received, type Receiver, startReceiver, verifyReceived } from '../fixtures/receiver';
import { createWorld } from '../fixtures/world';
import { type Credentials, createTestStack, type TestStack } from '../harness';
import { waitFor } from '../wait';

/**
 * Webhook delivery end to end: events written by payments go through the outbox relay and the delivery workers
 * (in this process, with a short retry schedule) to a real HTTP receiver, which verifies every signature with the
 * `standardwebhooks` package.
 */

let stack: TestStack;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  stack = await createTestStack({
    settlement: true,
    webhooks: true,
    // A timeout short enough for the test that waits one out, long enough that a busy machine's slow answer is not one.
    env: { WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,1,1', WEBHOOK_TIMEOUT_MS: '2000', OUTBOX_POLL_INTERVAL_MS: '200' },
  });
});
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

/** A fresh account with a merchant and a card token. */
const account = () => createWorld(stack);

/** Subscribes `path` of the receiver to `events` and returns the endpoint id and its secret (shown once). */
async function subscribe(creds: Credentials, path: string, events: string[] = ['*']) {
  const response = await stack.call('POST', '/webhooks', {
    as: creds,
    body: { data: { type: 'webhooks', attributes: { url: receiver.url(path), events } } },
  });
  if (response.status !== 201) throw new Error(`webhook creation failed: ${JSON.stringify(response.body)}`);
  return { id: response.body.data.id as string, secret: response.body.data.attributes.secret as string };
}

const deliveryOf = async (eventId: string, endpointId: string) =>
  (
    await stack.sql`
      select status, attempts, last_status_code, last_error from webhook_deliveries
      where event_id = ${eventId} and endpoint_id = ${endpointId}`
  )[0];

describe('webhook delivery', () => {
  it('delivers every event of the account, signed, in per-resource sequence, as GET shows the resource', async () => {
    const { creds, merchantId, tokenId } = await account();
    const endpoint = await subscribe(creds, '/all');
    const other = await account();
    const foreign = await subscribe(other.creds, '/foreign');

    const payment = (await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId, amount: '1000' }))).body.data;
    await postPayment(stack, creds, refundBody(payment.id, '300'));
    await postPayment(stack, creds, refundBody(payment.id, '200'));
    const requests = await waitFor(() => receiver.at('/all'), {
      until: (list) => list.filter((request) => request.body.includes(payment.id)).length >= 5,
      what: 'the five deliveries of the payment',
    });

    const bodies = requests.map((request) => verifyReceived(endpoint.secret, request));
    for (const request of requests) expect(request.headers['webhook-id']).toMatch(/^evt_/);
    const ofPayment = bodies.filter((body) => body.data.id === payment.id);
    expect(ofPayment.map((body) => [body.type, body.data.sequence, body.data.previousStatus])).toEqual(
      expect.arrayContaining([
        ['payment.created', 1, null],
        ['payment.partially_refunded', 2, 'pending'],
        ['payment.partially_refunded', 3, 'partial_refund'],
      ]),
    );
    const latest = ofPayment.sort((a, b) => b.data.sequence - a.data.sequence)[0]!;
    const current = await stack.call('GET', `/payments/${payment.id}`, { as: creds });
    const { voidableUntil: _ignored, ...attributes } = current.body.data.attributes;
    expect(latest.data.attributes).toMatchObject(attributes);
    // Another account's endpoint hears nothing of this account.
    expect(receiver.at('/foreign').some((request) => request.body.includes(payment.id))).toBe(false);
    expect(foreign.id).not.toBe(endpoint.id);
  });

  it('subscribes by event type', async () => {
    const { creds, merchantId, tokenId } = await account();
    await subscribe(creds, '/refunds-only', ['payment.partially_refunded']);
    const payment = (await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId }))).body.data;
    await postPayment(stack, creds, refundBody(payment.id, '100'));
    const [request] = await waitFor(() => receiver.at('/refunds-only'), {
      until: (list) => list.length >= 1,
      what: 'a delivery to /refunds-only',
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.at('/refunds-only')).toHaveLength(1);
    expect(JSON.parse(request!.body).type).toBe('payment.partially_refunded');
  });

  it('retries after a 500 and after a timeout, with the same webhook-id, then succeeds', async () => {
    const { creds, merchantId, tokenId } = await account();
    receiver.answer('/flaky', (n) => (n === 1 ? { status: 500 } : n === 2 ? 'hang' : { status: 204 }));
    const endpoint = await subscribe(creds, '/flaky', ['payment.created']);
    const payment = (await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId }))).body.data;
    const requests = await waitFor(() => receiver.at('/flaky'), {
      until: (list) => list.length >= 3,
      what: 'three attempts at /flaky',
    });
    expect(new Set(requests.map((request) => request.headers['webhook-id'])).size).toBe(1);
    for (const request of requests) expect(verifyReceived(endpoint.secret, request).data.id).toBe(payment.id);
    const eventId = String(requests[0]!.headers['webhook-id']);
    const delivery = await waitFor(() => deliveryOf(eventId, endpoint.id), {
      until: (row) => row?.status === 'succeeded',
      what: 'the delivery succeeded',
    });
    expect(delivery).toMatchObject({ attempts: 3, last_status_code: 204 });
    const attempts = await stack.sql`
      select attempt, status_code, error from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
      where d.event_id = ${eventId} order by attempt`;
    expect(attempts.map((row) => [row.attempt, row.status_code])).toEqual([
      [1, 500],
      [2, null],
      [3, 204],
    ]);
    expect(attempts[1]!.error).toContain('timed out');
  });

  it('keeps the start of an error answer, reading no more of a large body than that', async () => {
    const { creds, merchantId, tokenId } = await account();
    const body = `${'é'.repeat(200)}${'x'.repeat(64 * 1024 * 1024)}`;
    receiver.answer('/verbose', (n) => (n === 1 ? { status: 500, body } : { status: 204 }));
    const endpoint = await subscribe(creds, '/verbose', ['payment.created']);
    await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId }));
    const [first] = await waitFor(() => receiver.at('/verbose'), {
      until: (list) => list.length >= 2 && list[0]?.answeredInFull !== undefined,
      what: 'a retry after the 500, and the 500 answer closed',
    });
    expect(first!.answeredInFull).toBe(false);
    const eventId = String(first!.headers['webhook-id']);
    await waitFor(() => deliveryOf(eventId, endpoint.id), {
      until: (row) => row?.status === 'succeeded',
      what: 'the delivery succeeded',
    });
    const [attempt] = await stack.sql`
      select a.error from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
      where d.event_id = ${eventId} and a.attempt = 1`;
    expect(attempt!.error).toBe(`${`HTTP 500: ${'é'.repeat(200)}${'x'.repeat(300)}`.slice(0, 300)}…`);
  });

  it('honours Retry-After', async () => {
    const { creds, merchantId, tokenId } = await account();
    receiver.answer('/later', (n) => (n === 1 ? { status: 503, headers: { 'retry-after': '3' } } : { status: 200 }));
    await subscribe(creds, '/later', ['payment.created']);
    await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId }));
    const requests = await waitFor(() => receiver.at('/later'), {
      until: (list) => list.length >= 2,
      what: 'two attempts at /later',
    });
    expect(requests[1]!.at - requests[0]!.at).toBeGreaterThanOrEqual(2900);
  });

  it('disables the endpoint on 410 Gone, with a reason', async () => {
    const { creds, merchantId, tokenId } = await account();
    receiver.answer('/gone', () => ({ status: 410 }));
    const endpoint = await subscribe(creds, '/gone', ['payment.created']);
    await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId }));
    const shown = await waitFor(
      async () => (await stack.call('GET', `/webhooks/${endpoint.id}`, { as: creds })).body.data.attributes,
      { until: (attributes) => attributes.enabled === false, what: 'the endpoint disabled' },
    );
    expect(shown.disabledReason).toContain('410');
    const [delivery] =
      await stack.sql`select status, attempts from webhook_deliveries where endpoint_id = ${endpoint.id}`;
    expect(delivery).toEqual({ status: 'failed', attempts: 1 });
    // Disabled: the next event is not delivered.
    await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId }));
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(receiver.at('/gone')).toHaveLength(1);
  });

  it('disables an endpoint that has failed for WEBHOOK_DISABLE_AFTER_DAYS; a success ends a streak', async () => {
    const streakOf = async (id: string) =>
      (await stack.sql`select failing_since, enabled, disabled_reason from webhook_endpoints where id = ${id}`)[0]!;
    const { creds, merchantId, tokenId } = await account();
    let healthy = false;
    receiver.answer('/streak', () => ({ status: healthy ? 200 : 500 }));
    const endpoint = await subscribe(creds, '/streak', ['payment.created']);
    expect((await streakOf(endpoint.id)).failing_since).toBeNull();

    // A first failure starts the streak; the endpoint stays on.
    await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId }));
    const started = await waitFor(() => streakOf(endpoint.id), {
      until: (row) => row.failing_since !== null,
      what: 'the streak started',
    });
    expect(started.enabled).toBe(true);
    // A success ends it.
    healthy = true;
    await waitFor(() => streakOf(endpoint.id), {
      until: (row) => row.failing_since === null,
      what: 'the streak ended',
    });

    // Failing for longer than the setting (5 days): the next failed attempt disables it, with a reason.
    healthy = false;
    const since = new Date(Date.now() - 6 * 86_400_000);
    await stack.sql`update webhook_endpoints set failing_since = ${since.toISOString()} where id = ${endpoint.id}`;
    await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId }));
    const shown = await waitFor(
      async () => (await stack.call('GET', `/webhooks/${endpoint.id}`, { as: creds })).body.data.attributes,
      { until: (attributes) => attributes.enabled === false, what: 'the endpoint disabled' },
    );
    expect(shown.disabledReason).toBe(
      `No delivery has succeeded since ${since.toISOString().slice(0, 19)}Z (WEBHOOK_DISABLE_AFTER_DAYS: 5)`,
    );
    // Turned back on, it starts afresh.
    const enabled = await stack.call('PUT', `/webhooks/${endpoint.id}`, {
      as: creds,
      body: { data: { type: 'webhooks', attributes: { enabled: true } } },
    });
    expect(enabled.status).toBe(200);
    expect(await streakOf(endpoint.id)).toMatchObject({ failing_since: null, enabled: true, disabled_reason: null });
  });

  it('recovers after an outage longer than the retries: every failed delivery goes again, and arrives', async () => {
    const { creds, merchantId, tokenId } = await account();
    let up = false;
    const accepted: Received[] = [];
    receiver.answer('/outage', (_n, request) => {
      if (up) accepted.push(request);
      return { status: up ? 200 : 503 };
    });
    const endpoint = await subscribe(creds, '/outage', ['payment.created']);
    const payments = await Promise.all(
      [1, 2].map(async () => (await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId }))).body.data.id),
    );
    const statusesOf = async () =>
      (await stack.sql`select status from webhook_deliveries where endpoint_id = ${endpoint.id}`).map(
        (row) => row.status,
      );
    await waitFor(statusesOf, {
      until: (statuses) => statuses.length === 2 && statuses.every((status) => status === 'failed'),
      timeoutMs: 20_000,
      what: 'both deliveries failed for good',
    });
    up = true;
    const recovered = await stack.call('POST', `/webhooks/${endpoint.id}/recover`, {
      as: creds,
      headers: { 'content-type': 'application/json' },
    });
    expect(recovered.status).toBe(202);
    expect(recovered.body.data.attributes.reopened).toBe(2);
    await waitFor(statusesOf, {
      until: (statuses) => statuses.every((status) => status === 'succeeded'),
      what: 'both delivered after the recovery',
    });
    expect(accepted.map((request) => verifyReceived(endpoint.secret, request).data.id).sort()).toEqual(
      [...payments].sort(),
    );
  });

  it('signs with both secrets while a rotated one still signs', async () => {
    const { creds, merchantId, tokenId } = await account();
    const endpoint = await subscribe(creds, '/rotated', ['payment.created']);
    const rotated = await stack.call('POST', `/webhooks/${endpoint.id}/rotate-secret`, { as: creds });
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.data.attributes.secret as string;
    expect(newSecret).not.toBe(endpoint.secret);
    await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId }));
    const [request] = await waitFor(() => receiver.at('/rotated'), {
      until: (list) => list.length >= 1,
      what: 'a delivery to /rotated',
    });
    expect(String(request!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifyReceived(newSecret, request!).type).toBe('payment.created');
    expect(verifyReceived(endpoint.secret, request!).type).toBe('payment.created');
  });

  it('fails after the last retry, and redelivery reopens the failed delivery', async () => {
    const { creds, merchantId, tokenId } = await account();
    let healthy = false;
    receiver.answer('/down', () => (healthy ? { status: 200 } : { status: 500 }));
    const endpoint = await subscribe(creds, '/down', ['payment.created']);
    await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId }));
    const first = await waitFor(() => receiver.at('/down'), {
      until: (list) => list.length >= 1,
      what: 'a first attempt at /down',
    });
    const eventId = String(first[0]!.headers['webhook-id']);
    const failed = await waitFor(() => deliveryOf(eventId, endpoint.id), {
      until: (row) => row?.status === 'failed',
      what: 'the delivery failed',
    });
    expect(failed).toMatchObject({ attempts: 4, last_status_code: 500 });

    healthy = true;
    const redeliver = await stack.call('POST', `/events/${eventId}/redeliver`, { as: creds });
    expect(redeliver.status).toBe(202);
    const done = await waitFor(() => deliveryOf(eventId, endpoint.id), {
      until: (row) => row?.status === 'succeeded',
      what: 'the redelivery succeeded',
    });
    expect(done!.attempts).toBe(5);
    expect(receiver.at('/down').at(-1)!.headers['webhook-id']).toBe(eventId);
  });
});

describe('delivery metrics', () => {
  it('counts attempts by outcome, times them, measures commit-to-receipt lag and the oldest event on its way', async () => {
    const metric = async (pattern: RegExp) => {
      const text = (await stack.call('GET', '/metrics')).body as string;
      return Number(text.match(pattern)?.[1] ?? Number.NaN);
    };
    const succeeded = /^pps_webhook_deliveries_total\{outcome="succeeded"\} (\d+)/m;
    const lagCount = /^pps_webhook_delivery_lag_seconds_count (\d+)/m;
    const attempts = /^pps_webhook_attempt_duration_seconds_count (\d+)/m;
    const direct = /^pps_webhook_first_attempts_total\{way="direct"\} (\d+)/m;
    const before = {
      succeeded: (await metric(succeeded)) || 0,
      lag: (await metric(lagCount)) || 0,
      direct: (await metric(direct)) || 0,
    };

    const { creds, merchantId, tokenId } = await account();
    await subscribe(creds, '/metrics');
    const payment = (await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId }))).body.data;
    await waitFor(() => receiver.at('/metrics'), {
      until: (list) => list.some((request) => request.body.includes(payment.id)),
      what: 'the delivery',
    });
    await waitFor(() => metric(succeeded), { until: (n) => n >= before.succeeded + 1, what: 'the success counted' });
    expect(await metric(lagCount)).toBeGreaterThanOrEqual(before.lag + 1);
    expect(await metric(attempts)).toBeGreaterThanOrEqual(1);
    // Its first attempt was made by the relay's process, without a job.
    expect(await metric(direct)).toBeGreaterThanOrEqual(before.direct + 1);
    // Nothing of this account is on its way any more; what other tests left pending is minutes old at most.
    const oldest = await metric(/^pps_webhook_oldest_undelivered_seconds (\S+)/m);
    expect(oldest).toBeGreaterThanOrEqual(0);
    expect(oldest).toBeLessThan(600);
  });
});

describe('no head-of-line blocking', () => {
  let small: TestStack;
  beforeAll(async () => {
    // Few worker slots, at most two per endpoint: a dead receiver must still leave room for everyone else.
    small = await createTestStack({
      settlement: true,
      webhooks: true,
      env: {
        WEBHOOK_CONCURRENCY: '4',
        WEBHOOK_ENDPOINT_CONCURRENCY: '2',
        WEBHOOK_RETRY_SCHEDULE_SECONDS: '60',
        WEBHOOK_TIMEOUT_MS: '3000',
        OUTBOX_POLL_INTERVAL_MS: '200',
      },
    });
  });
  afterAll(() => small?.close());

  it("a receiver that never answers does not delay another account's deliveries", async () => {
    const slow = await createWorld(small);
    const fast = await createWorld(small);
    receiver.answer('/dead', () => 'hang');
    for (const [who, path] of [
      [slow, '/dead'],
      [fast, '/alive'],
    ] as const) {
      const created = await small.call('POST', '/webhooks', {
        as: who.creds,
        body: { data: { type: 'webhooks', attributes: { url: receiver.url(path), events: ['payment.created'] } } },
      });
      expect(created.status).toBe(201);
    }
    for (let i = 0; i < 10; i++) await createPayment(small, slow.creds, tokenv3Body(slow));
    await waitFor(() => receiver.at('/dead'), { until: (list) => list.length >= 2, what: 'two attempts at /dead' });
    const started = Date.now();
    await createPayment(small, fast.creds, tokenv3Body(fast));
    await waitFor(() => receiver.at('/alive'), {
      until: (list) => list.length >= 1,
      timeoutMs: 2500,
      what: 'a delivery to /alive',
    });
    // Delivered while the dead receiver still holds its two slots (each attempt waits 3 s to time out).
    expect(Date.now() - started).toBeLessThan(2500);
    expect(receiver.at('/dead').length).toBeLessThanOrEqual(4);
    // The dead endpoint's other first attempts stepped aside into jobs, and /metrics says so.
    const handedOff = async () =>
      Number(
        ((await small.call('GET', '/metrics')).body as string).match(
          /^pps_webhook_first_attempts_total\{way="handed_off"\} (\d+)/m,
        )?.[1] ?? 0,
      );
    await waitFor(handedOff, { until: (n) => n >= 1, what: 'a first attempt handed off' });
  });
});

describe('step-asides', () => {
  it("counts an endpoint's step-asides, not its first attempts waiting in line again in the process", async () => {
    const config = { ...stack.config, WEBHOOK_ENDPOINT_CONCURRENCY: 1 };
    const deps = deliveryJobDeps({ config, db: stack.db, log: createLogger({ level: 'silent' }) });
    const slots = deps.endpointSlots;
    try {
      // A fast endpoint (it answered in 50 ms) whose one slot is taken.
      expect(await slots.acquire('whk_one_slot', 0)).toBe(true);
      slots.release('whk_one_slot', 50);
      expect(await slots.acquire('whk_one_slot', 0)).toBe(true);
      const loaded = {
        id: 'del_waiting',
        status: 'pending' as const,
        attempts: 0,
        endpointId: 'whk_one_slot',
        eventId: 'evt_waiting',
        eventCreatedAt: new Date(),
        body: '{}',
        url: receiver.url('/one-slot'),
        enabled: true,
        deletedAt: null,
        secretEnc: '',
        previousSecretEnc: null,
        previousSecretExpiresAt: null,
        apiVersion: '2026-11-29' as const,
      };
      // 200 first attempts wait out their turn: each is busy, and its process puts it back in line (no step-aside).
      const results = await Promise.all(
        Array.from({ length: 200 }, () =>
          attemptDelivery(deps, { deliveryId: loaded.id, endpointId: loaded.endpointId, loaded }, true),
        ),
      );
      for (const result of results) expect(result).toMatchObject({ kind: 'busy', slow: false });
      // The first delivery that does step aside comes back in about four answer times (at least 500 ms, jittered up
      // to twice that). Had the 200 counted as step-asides, their backlog would have set it: 200 × 50 ms ÷ 1 slot.
      expect(slots.stepAsideMs(loaded.endpointId)).toBeLessThan(5000);
    } finally {
      slots.release('whk_one_slot');
      await deps.agent.close();
    }
  });
});

describe('retention', () => {
  it('runs hourly; removes events past EVENT_RETENTION_DAYS and their deliveries, and GET answers 404', async () => {
    const queue = stack.webhooks!.queues.webhooks;
    const schedulers = await waitFor(() => queue.getJobSchedulers(), {
      until: (list) => list.some((scheduler) => scheduler.key === jobs.eventRetention.name),
      what: 'the retention scheduler',
    });
    expect(schedulers.find((scheduler) => scheduler.key === jobs.eventRetention.name)?.every).toBe(3_600_000);

    const { creds, merchantId, tokenId } = await account();
    const endpoint = await subscribe(creds, '/retention', ['payment.created']);
    const payments = await Promise.all(
      [1, 2].map(async () => (await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId }))).body.data.id),
    );
    const eventIds = (
      await stack.sql`select id from events where resource_id in ${stack.sql(payments)} order by resource_id`
    ).map((row) => row.id as string);
    await waitFor(() => Promise.all(eventIds.map((id) => deliveryOf(id, endpoint.id))), {
      until: (rows) => rows.every((row) => row?.status === 'succeeded'),
      what: 'both delivered',
    });
    // The first event as it would be 31 days on (the default keeps 30): its id and time from then, as a copy.
    const monthAgo = Date.now() - 31 * 86_400_000;
    const oldId = newId('event', monthAgo);
    await stack.sql`
      update events set id = ${oldId}, created_at = ${new Date(monthAgo).toISOString()} where id = ${eventIds[0]!}`;
    await stack.sql`update webhook_deliveries set event_id = ${oldId} where event_id = ${eventIds[0]!}`;
    eventIds[0] = oldId;
    const run = await queue.add(jobs.eventRetention.name, {});
    await waitFor(() => run.getState(), { until: (state) => state === 'completed', what: 'the retention run' });

    const old = await stack.call('GET', `/events/${eventIds[0]}`, { as: creds });
    expect(old.status).toBe(404);
    expect(await stack.sql`select 1 from webhook_deliveries where event_id = ${eventIds[0]!}`).toHaveLength(0);
    expect((await stack.call('GET', `/events/${eventIds[1]}`, { as: creds })).status).toBe(200);
    expect(await deliveryOf(eventIds[1]!, endpoint.id)).toMatchObject({ status: 'succeeded' });
  });
});

describe('the stale sweep', () => {
  it('gives a pending delivery whose job BullMQ gave up on a new job, and it is delivered', async () => {
    const { creds, merchantId, tokenId } = await account();
    const payment = (await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId }))).body.data;
    const [event] = await stack.sql`select id from events where resource_id = ${payment.id}`;
    const endpoint = await subscribe(creds, '/sweep', ['payment.created']);
    // A delivery the relay enqueued long ago, whose job then failed for good (here: a payload it cannot read).
    const deliveryId = newId('delivery');
    await stack.sql`
      insert into webhook_deliveries (id, account_id, endpoint_id, event_id, status, enqueued_at, created_at, updated_at)
      values (${deliveryId}, ${creds.accountId}, ${endpoint.id}, ${event!.id}, 'pending',
        now() - interval '10 minutes', now() - interval '10 minutes', now() - interval '10 minutes')`;
    const queue = stack.webhooks!.queues.webhooks;
    const broken = await queue.add(jobs.webhookDelivery.name, { deliveryId }, { jobId: deliveryId });
    await waitFor(() => broken.getState(), { until: (state) => state === 'failed', what: 'the broken job failed' });

    expect(await requeueStale({ db: stack.db, queue, batchSize: 100 })).toBeGreaterThanOrEqual(1);
    const [request] = await waitFor(() => receiver.at('/sweep'), {
      until: (list) => list.length >= 1,
      what: 'a delivery to /sweep',
    });
    expect(verifyReceived(endpoint.secret, request!).data.id).toBe(payment.id);
    expect(
      await waitFor(() => deliveryOf(event!.id, endpoint.id), {
        until: (row) => row?.status === 'succeeded',
        what: 'the delivery succeeded',
      }),
    ).toMatchObject({
      attempts: 1,
    });
  });
});

describe('the lease sweep', () => {
  it('gives a job to a delivery whose lease lapsed with none alive, and leaves one whose job is alive', async () => {
    const { creds, merchantId, tokenId } = await account();
    const endpoint = await subscribe(creds, '/lease', ['payment.created']);
    const eventIds: string[] = [];
    for (let i = 0; i < 2; i++) {
      const payment = (await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId }))).body.data;
      const [event] = await stack.sql`select id from events where resource_id = ${payment.id}`;
      eventIds.push(event!.id);
    }
    await waitFor(() => Promise.all(eventIds.map((id) => deliveryOf(id, endpoint.id))), {
      until: (rows) => rows.every((row) => row?.status === 'succeeded'),
      what: 'both delivered',
    });
    // As a process that leased them and died would leave them: pending, no attempt, the lease lapsed. The second
    // was handed to a job that is still waiting (delayed), its lease not yet ended.
    const [orphan, handedOff] = [newId('delivery'), newId('delivery')];
    // Subscribed after the events: the relay makes it no deliveries of them, only these two rows do.
    const otherEndpoint = await subscribe(creds, '/lease-other', ['payment.created']);
    for (const [deliveryId, eventId] of [
      [orphan, eventIds[0]!],
      [handedOff, eventIds[1]!],
    ] as const) {
      await stack.sql`
        insert into webhook_deliveries (id, account_id, endpoint_id, event_id, status, enqueued_at, leased_until,
          created_at, updated_at)
        values (${deliveryId}, ${creds.accountId}, ${otherEndpoint.id}, ${eventId}, 'pending', now() - interval '1 minute',
          now() - interval '1 second', now() - interval '1 minute', now() - interval '1 minute')`;
    }
    const queue = stack.webhooks!.queues.webhooks;
    const alive = await queue.add(
      jobs.webhookDelivery.name,
      { deliveryId: handedOff, endpointId: otherEndpoint.id },
      { jobId: handedOff, delay: 60_000 },
    );

    // The stack's own relay sweeps every second too: between the two, the orphan is given one job.
    expect([0, 1]).toContain(await reclaimLapsedLeases({ db: stack.db, queue, batchSize: 100 }));
    const leases = await stack.sql`
      select id, leased_until from webhook_deliveries where id in ${stack.sql([orphan, handedOff])}`;
    expect(leases.map((row) => row.leased_until)).toEqual([null, null]);
    expect(await alive.getState()).toBe('delayed'); // left alone: not added again, not run early
    const [request] = await waitFor(() => receiver.at('/lease-other'), {
      until: (list) => list.length >= 1,
      what: 'the orphan delivered',
    });
    expect(request!.headers['webhook-id']).toBe(eventIds[0]);
    await waitFor(() => deliveryOf(eventIds[0]!, otherEndpoint.id), {
      until: (row) => row?.status === 'succeeded',
      what: 'the orphan recorded',
    });
    // Nothing left to reclaim: a second sweep adds nothing, and the orphan went out once.
    expect(await reclaimLapsedLeases({ db: stack.db, queue, batchSize: 100 })).toBe(0);
    await sleep(300);
    expect(receiver.at('/lease-other')).toHaveLength(1);
    await alive.remove();
  });
});
