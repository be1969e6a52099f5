import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPayment, tokenv3Body } from '../fixtures/payments';
import { type Receiver, startReceiver } from '../fixtures/receiver';
import { copyRow, rowsRead } from '../fixtures/scans';
import { createWorld } from '../fixtures/world';
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';
import { waitFor } from '../wait';

/**
 * `GET /events/{id}/deliveries` (docs/api.md, Events and redelivery): a payment's `payment.created` event delivered
 * by the real pipeline to three endpoints of the account (one answering 200, one 500 until it gives up, one deleted
 * since), listed one per endpoint, newest first, each the same resource `GET /webhooks/{id}/deliveries` shows, with
 * its attempts; cursor pages; an event no endpoint received lists none; another account's event and unknown ids are
 * refused as `GET /events/{id}` refuses them; and the read takes the event's rows by its index.
 */

type Delivery = {
  type: string;
  id: string;
  attributes: {
    endpointId: string;
    eventId: string;
    eventType: string;
    status: string;
    attempts: number;
    lastStatusCode: number | null;
    createdAt: string;
    attemptLog: { attempt: number; statusCode: number | null }[];
  };
};

const base = 'http://localhost:8080';

let stack: TestStack;
let receiver: Receiver;
let acme: Credentials;
let globex: Credentials;
let endpoints: { ok: string; failing: string; deleted: string };
let eventId: string;
let undelivered: string;
const sent: { text: string; params: readonly unknown[] }[] = [];
let listening = false;

beforeAll(async () => {
  receiver = await startReceiver();
  receiver.answer('/fail', () => ({ status: 500, body: 'receiver down' }));
  stack = await createTestStack({
    webhooks: true,
    env: { WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,1', WEBHOOK_TIMEOUT_MS: '2000', OUTBOX_POLL_INTERVAL_MS: '200' },
    onQuery: (text, params) => {
      if (listening) sent.push({ text, params: [...params] });
    },
  });
  const world = await createWorld(stack, { account: 'Acme', other: 'Globex' });
  [acme, globex] = [world.creds, world.other];
  const subscribe = async (path: string) => {
    const created = await stack.call('POST', '/webhooks', {
      as: acme,
      body: { data: { type: 'webhooks', attributes: { url: receiver.url(path), events: ['payment.created'] } } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.data.id as string;
  };
  endpoints = { ok: await subscribe('/ok'), failing: await subscribe('/fail'), deleted: await subscribe('/gone') };

  const paid = await createPayment(stack, acme, tokenv3Body({ merchantId: world.merchantId, tokenId: world.tokenId }));
  const events = await stack.call('GET', `/events?resourceId=${paid.body.data.id}&type=payment.created`, { as: acme });
  eventId = events.body.data[0].id;
  // The merchant's creation came before any endpoint: no delivery.
  undelivered = (await stack.call('GET', '/events?type=merchant.created', { as: acme })).body.data[0].id;

  await waitFor(() => stack.sql`select endpoint_id, status from webhook_deliveries where event_id = ${eventId}`, {
    until: (rows) => rows.length === 3 && rows.every((row) => row.status !== 'pending'),
    what: 'the three deliveries of the event, done',
    timeoutMs: 30_000,
  });
  expect((await stack.call('DELETE', `/webhooks/${endpoints.deleted}`, { as: acme })).status).toBe(204);
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

const get = (path: string, as: Credentials = acme) => stack.call('GET', path, { as });

describe('GET /events/{id}/deliveries', () => {
  it('lists the event’s deliveries, one per endpoint, newest first, each with its attempts', async () => {
    const response = await get(`/events/${eventId}/deliveries`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const deliveries = response.body.data as Delivery[];
    expect(response.body.meta).toMatchObject({ total: 3, limit: 25, offset: 0, hasMore: false });
    expect(response.body.links).toEqual({ self: `${base}/events/${eventId}/deliveries`, next: null });

    const newestFirst = [...deliveries].sort(
      (a, b) => b.attributes.createdAt.localeCompare(a.attributes.createdAt) || b.id.localeCompare(a.id),
    );
    expect(deliveries.map(({ id }) => id)).toEqual(newestFirst.map(({ id }) => id));
    const byEndpoint = new Map(deliveries.map((delivery) => [delivery.attributes.endpointId, delivery]));
    expect([...byEndpoint.keys()].sort()).toEqual(Object.values(endpoints).sort());
    for (const { type, attributes } of deliveries) {
      expect(type).toBe('deliveries');
      expect(attributes).toMatchObject({ eventId, eventType: 'payment.created' });
      expect(attributes.attemptLog).toHaveLength(attributes.attempts);
    }
    expect(byEndpoint.get(endpoints.ok)?.attributes).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      lastStatusCode: 200,
      attemptLog: [{ attempt: 1, statusCode: 200 }],
    });
    // The first attempt and the two retries of WEBHOOK_RETRY_SCHEDULE_SECONDS, each answered 500.
    expect(byEndpoint.get(endpoints.failing)?.attributes).toMatchObject({
      status: 'failed',
      attempts: 3,
      lastStatusCode: 500,
    });
    expect(byEndpoint.get(endpoints.failing)?.attributes.attemptLog.map((attempt) => attempt.statusCode)).toEqual([
      500, 500, 500,
    ]);
    // The deleted endpoint's delivery is the event's history: still listed (its endpoint answers 404 now).
    expect(byEndpoint.get(endpoints.deleted)?.attributes.status).toBe('succeeded');
    expect((await get(`/webhooks/${endpoints.deleted}`)).status).toBe(404);

    // The same resource as the endpoint's own list shows.
    for (const endpointId of [endpoints.ok, endpoints.failing]) {
      const listed = (await get(`/webhooks/${endpointId}/deliveries`)).body.data as Delivery[];
      expect(listed.find((delivery) => delivery.attributes.eventId === eventId)).toEqual(byEndpoint.get(endpointId));
    }
  });

  it('pages by cursor, and lists none for an event no endpoint received', async () => {
    const all = ((await get(`/events/${eventId}/deliveries`)).body.data as Delivery[]).map(({ id }) => id);
    const first = await get(`/events/${eventId}/deliveries?limit=2`);
    expect(first.body.data.map(({ id }: Delivery) => id)).toEqual(all.slice(0, 2));
    expect(first.body.meta).toMatchObject({ total: 3, limit: 2, hasMore: true });
    expect(first.body.links.next).toBe(`${base}/events/${eventId}/deliveries?limit=2&startingAfter=${all[1]}`);
    const second = await get(new URL(first.body.links.next).pathname + new URL(first.body.links.next).search);
    expect(second.body.data.map(({ id }: Delivery) => id)).toEqual(all.slice(2));

    const none = await get(`/events/${undelivered}/deliveries`);
    expect(none.status).toBe(200);
    expect(none.body.data).toEqual([]);
    expect(none.body.meta.total).toBe(0);
  });

  it('refuses as GET /events/{id} does: 404 for an unknown or malformed id, 403 for another account’s', async () => {
    const answers = {
      unknown: await get('/events/evt_0000000000000000000000000a/deliveries'),
      malformed: await get('/events/whatever/deliveries'),
      another: await get(`/events/${eventId}/deliveries`, globex),
    };
    expectError(answers.unknown, 404, 'event_not_found');
    expectError(answers.malformed, 404, 'event_not_found');
    expectError(answers.another, 403, 'event_forbidden');
    expect(answers.another.body.errors).toEqual((await get(`/events/${eventId}`, globex)).body.errors);
    for (const answer of Object.values(answers)) {
      expect(answer.body.errors).toHaveLength(1);
      expect(answer.body.errors[0].source).toBeUndefined();
    }
    expect(JSON.stringify(answers.another.body)).not.toContain(endpoints.ok);
    // A list's parameters are checked as every list's are.
    expectError(await get(`/events/${eventId}/deliveries?limit=0`), 400, 'invalid_field');
    expectError(await get(`/events/${eventId}/deliveries?endpointId=${endpoints.ok}`), 400, 'unknown_parameter');
    expectError(await get(`/events/${eventId}/deliveries?startingAfter=del_nope`), 400, 'invalid_cursor');
  });

  it('reads the event’s deliveries along its index, whatever other events’ deliveries there are', async () => {
    const [delivery] = await stack.sql`select id from webhook_deliveries where event_id = ${eventId} limit 1`;
    await copyRow(
      stack.sql,
      { table: 'webhook_deliveries', id: delivery!.id },
      { prefix: 'del_copy', count: 3000, perCopy: { event_id: "'evt_copy' || i" } },
    );
    await stack.sql`analyze webhook_deliveries`;

    sent.length = 0;
    listening = true;
    const response = await get(`/events/${eventId}/deliveries`);
    listening = false;
    expect(response.body.data).toHaveLength(3);
    // The answer's own reads: those naming the event (the relay's rounds run beside it, and read the table too).
    const reads = sent.filter(
      ({ text, params }) =>
        /^\s*select/i.test(text) && text.includes('from "webhook_deliveries"') && params.includes(eventId),
    );
    expect(reads).toHaveLength(2);
    for (const statement of reads) {
      // The page and its count: each reads the event's three rows, not the 3,000 others.
      expect((await rowsRead(stack.sql, statement, 'webhook_deliveries')).read).toBeLessThanOrEqual(3);
    }
  });
});
