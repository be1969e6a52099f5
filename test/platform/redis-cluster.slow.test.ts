import { verifyKeptFigures } from '@pps/shared/ledger';
import { type RedisCluster, startRedisCluster } from '@pps/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postPayment, setClock, tokenv3Body } from '../fixtures/payments';
import { type Receiver, startReceiver, verifyReceived } from '../fixtures/receiver';
import { createWorld } from '../fixtures/world';
import { type Credentials, createTestStack, type TestStack } from '../harness';
import { waitFor } from '../wait';

/**
 * The platform on a Redis Cluster of three masters and three replicas of its own (docs/design.md, Past one
 * machine): payments → webhooks → settlement through it, each queue on its own hash tag, and the master serving the
 * webhooks queue killed with SIGKILL mid-load (every third delivery's first attempt failing, so retries are jobs on
 * that queue). Its replica takes over, and every payment is delivered and settled once. Judged by the receiver and the database.
 */
let cluster: RedisCluster;
let receiver: Receiver;
let stack: TestStack;
let creds: Credentials;
let merchantId: string;
let tokenId: string;
let secret: string;

beforeAll(async () => {
  [cluster, receiver] = await Promise.all([startRedisCluster(), startReceiver()]);
  stack = await createTestStack({
    settlement: true,
    webhooks: true,
    // Retries and passes every second, so both go through the cluster within the test; a retry job the killed
    // master took with it is given another after 4 s (the stale sweep), not the default two minutes, and one it left
    // active with its lock is taken up again once a 5 s lock lapses (BullMQ's stalled check), not 30 s.
    env: {
      REDIS_CLUSTER_NODES: cluster.nodes,
      WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,1,1,1,1',
      SETTLEMENT_INTERVAL_SECONDS: '1',
      WEBHOOK_STALE_SECONDS: '4',
      WEBHOOK_JOB_LOCK_MS: '5000',
      WEBHOOK_TIMEOUT_MS: '2000',
    },
  });
  ({ creds, merchantId, tokenId } = await createWorld(stack, { account: 'On a Redis Cluster' }));
  const endpoint = await stack.call('POST', '/webhooks', {
    as: creds,
    body: { data: { type: 'webhooks', attributes: { url: receiver.url('/cluster'), events: ['*'] } } },
  });
  expect(endpoint.status).toBe(201);
  secret = endpoint.body.data.attributes.secret;
  // The first attempt of every third event fails: its retry is a job on the webhooks queue, in the cluster.
  // Only first attempts are refused: a retry is always answered 200 (refusing by request count could refuse one
  // event's every attempt, and it would end `failed` after its retry schedule, with nothing lost by Redis).
  const refused = new Set<string>();
  receiver.answer('/cluster', (n, request) => {
    const id = String(request.headers['webhook-id']);
    if (n % 3 === 1 && !refused.has(id)) {
      refused.add(id);
      return { status: 500 };
    }
    answered.push(id);
    return { status: 200 };
  });
}, 120_000);

/** The webhook ids (event ids) the receiver answered 200, in order. */
const answered: string[] = [];

afterAll(async () => {
  try {
    await stack?.close();
    await receiver?.close();
  } finally {
    // Whatever closing the stack did, the cluster's nodes go.
    await cluster?.stop();
  }
});

const pay = async (count: number) => {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const response = await postPayment(stack, creds, tokenv3Body({ merchantId, tokenId }));
    expect(response.status).toBe(201);
    ids.push(response.body.data.id);
  }
  return ids;
};

/** Each event the receiver answered 200, by webhook id (the event's id): its type, its payment, how many times. */
const deliveredEvents = () => {
  const events = new Map<string, { type: string; payment: string; count: number }>();
  for (const request of receiver.at('/cluster')) {
    const id = String(request.headers['webhook-id']);
    if (!answered.includes(id) || events.has(id)) continue;
    const event = verifyReceived(secret, request);
    events.set(id, { type: event.type, payment: event.data.id, count: answered.filter((each) => each === id).length });
  }
  return events;
};

describe('on a Redis Cluster', () => {
  it('keeps each queue under a hash tag of its own, so the queues spread over slots', async () => {
    const prefix = stack.config.QUEUE_PREFIX;
    const keys = await cluster.keys(`*${prefix}*`);
    const tags = new Set(keys.map((key) => /^\{([^}]*)\}/.exec(key)?.[1]));
    expect(tags).toEqual(new Set([`${prefix}:settlement`, `${prefix}:maintenance`, `${prefix}:webhooks`]));
    const slots = new Set(await Promise.all([...tags].map((tag) => cluster.slotOf(`{${tag}}`))));
    expect(slots.size).toBe(3);
  });

  it('delivers and settles every payment once when the webhooks queue master dies mid-load', async () => {
    const before = await pay(20);
    const master = await cluster.masterOf(`{${stack.config.QUEUE_PREFIX}:webhooks}`);
    const during = pay(30);
    await waitFor(
      async () =>
        (await stack.sql`select count(*)::int as n from payments where account_id = ${creds.accountId}`)[0]!.n,
      {
        until: (n) => n >= 25,
        what: 'payments under way',
      },
    );
    await cluster.kill(master);
    const failoverMs = await cluster.failedOver(master, `{${stack.config.QUEUE_PREFIX}:webhooks}`);
    console.log(`failover: the webhooks queue's slot served again after ${failoverMs} ms`);
    const ids = [...before, ...(await during), ...(await pay(10))];
    expect(ids).toHaveLength(60);

    // Settlement through the cluster: the clock moves past the settlement date, the pass settles every payment.
    const [first] = await stack.sql`select max(settle_at) as at from payments where id = any(${ids})`;
    await setClock(stack, creds, new Date(new Date(first!.at).getTime() + 60_000));
    await waitFor(
      async () =>
        (await stack.sql`select count(*)::int as n from payments where id = any(${ids}) and status = 'completed'`)[0]!
          .n,
      { until: (n) => n === ids.length, what: 'every payment settled', timeoutMs: 60_000 },
    );
    const [settled] = await stack.sql`
      select count(distinct posting_id)::int as postings, count(distinct payment_id)::int as payments
      from ledger_entries where kind = 'settlement' and payment_id = any(${ids})`;
    expect(settled).toEqual({ postings: ids.length, payments: ids.length });

    // Every payment's created and completed events reached the receiver, each once.
    const answeredFor = (type: string) =>
      new Set([...deliveredEvents().values()].filter((event) => event.type === type).map((event) => event.payment));
    await waitFor(() => answeredFor('payment.created').size + answeredFor('payment.completed').size, {
      until: (count) => count === 2 * ids.length,
      what: "every payment's created and completed events answered",
      timeoutMs: 120_000,
    });
    const events = [...deliveredEvents().values()];
    for (const type of ['payment.created', 'payment.completed']) {
      const ofType = events.filter((event) => event.type === type);
      expect(new Set(ofType.map((event) => event.payment))).toEqual(new Set(ids));
      expect(
        ofType.every((event) => event.count === 1),
        `${type} delivered once each`,
      ).toBe(true);
    }
    // Some first attempts failed, and their retries went through the webhooks queue.
    expect(receiver.at('/cluster').length).toBeGreaterThan(answered.length);
    expect((await verifyKeptFigures(stack.db)).differences).toEqual([]);
  }, 240_000);
});
