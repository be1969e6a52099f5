import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../fixtures/merchants';
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';
import { base, emptyBodies, pointer, UNKNOWN_EVENT, UNKNOWN_WEBHOOK, webhookBody, webhookCalls } from './webhooks-api';

// The events' API: listing and reading events, and redelivering one.

let stack: TestStack;
let globex: Credentials;

beforeAll(async () => {
  stack = await createTestStack();
  globex = await stack.createAccount('Globex Platform');
});
afterAll(() => stack.close());

const { webhookId, deliveriesOf, bodiless } = webhookCalls(() => stack);

describe('GET /events and GET /events/{id}', () => {
  let owner: Credentials;
  let merchantA: string;
  let merchantB: string;
  let endpoint: string;
  let testEvent: string;

  beforeAll(async () => {
    owner = await stack.createAccount('Events');
    merchantA = await createMerchant(stack, owner);
    endpoint = await webhookId(owner);
    testEvent = (await stack.call('POST', `/webhooks/${endpoint}/test`, { as: owner })).body.data.id;
    merchantB = await createMerchant(stack, owner);
    await createMerchant(stack, globex);
  });

  const list = (query = '') => stack.call('GET', `/events${query}`, { as: owner });
  const types = (body: { data: { attributes: { type: string; resourceId: string } }[] }) =>
    body.data.map((event) => `${event.attributes.type} ${event.attributes.resourceId}`);

  it('lists the account’s events newest first', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(types(res.body)).toEqual([
      `merchant.created ${merchantB}`,
      `webhook.test ${endpoint}`,
      `merchant.created ${merchantA}`,
    ]);
    expect(res.body.meta).toEqual({ total: 3, limit: 25, offset: 0, hasMore: false });
    expect(res.body.links).toEqual({ self: `${base}/events`, next: null });
    const page = await list('?limit=1&offset=1');
    expect(page.body.data.map((event: { id: string }) => event.id)).toEqual([testEvent]);
    expect(page.body.links.next).toBe(`${base}/events?limit=1&startingAfter=${testEvent}`);
  });

  it('filters by type and by resourceId', async () => {
    const merchants = await list('?type=merchant.created');
    expect(types(merchants.body)).toEqual([`merchant.created ${merchantB}`, `merchant.created ${merchantA}`]);
    expect(merchants.body.meta.total).toBe(2);
    expect(types((await list(`?resourceId=${merchantA}`)).body)).toEqual([`merchant.created ${merchantA}`]);
    expect(types((await list(`?type=webhook.test&resourceId=${endpoint}`)).body)).toEqual([`webhook.test ${endpoint}`]);
    expect((await list(`?type=payment.completed`)).body).toMatchObject({ data: [], meta: { total: 0 } });
    expect((await list(`?type=&resourceId=`)).body.meta.total).toBe(3);
  });

  it('400 invalid_event_type for an unknown type filter', async () => {
    const res = await list('?type=payment.exploded');
    expectError(res, 400, 'invalid_event_type');
    expect(res.body.errors[0].source).toEqual({ parameter: 'type' });
  });

  it('GET /events/{id} returns the event with its stored payload', async () => {
    const res = await stack.call('GET', `/events/${testEvent}`, { as: owner });
    expect(res.status).toBe(200);
    const [row] = await stack.sql`select payload, sequence, created_at from events where id = ${testEvent}`;
    expect(res.body).toEqual({
      links: { self: `${base}/events/${testEvent}` },
      data: {
        type: 'events',
        id: testEvent,
        attributes: {
          type: 'webhook.test',
          resourceType: 'webhooks',
          resourceId: endpoint,
          sequence: row!.sequence,
          payload: row!.payload,
          createdAt: new Date(row!.created_at).toISOString(),
        },
      },
    });
    const merchantEvent = (await list(`?resourceId=${merchantA}`)).body.data[0];
    const shown = await stack.call('GET', `/events/${merchantEvent.id}`, { as: owner });
    expect(shown.body.data.attributes.payload).toMatchObject({
      type: 'merchant.created',
      data: { type: 'merchants', id: merchantA, previousStatus: null, sequence: 1 },
    });
  });

  it('404 event_not_found for unknown and malformed ids; 403 event_forbidden for another account’s', async () => {
    expectError(await stack.call('GET', `/events/${UNKNOWN_EVENT}`, { as: owner }), 404, 'event_not_found');
    expectError(await stack.call('GET', '/events/evt_x', { as: owner }), 404, 'event_not_found');
    expectError(await stack.call('GET', `/events/${testEvent}`, { as: globex }), 403, 'event_forbidden');
    const theirs = await stack.call('GET', '/events', { as: globex });
    expect(theirs.body.data.map((event: { id: string }) => event.id)).not.toContain(testEvent);
  });
});

describe('POST /events/{id}/redeliver', () => {
  let owner: Credentials;
  let eventId: string;
  /** all: "*" with a delivered event; merchants: subscribed, no delivery; payments: not subscribed, but had one. */
  const endpoints = {} as Record<'all' | 'merchants' | 'payments' | 'disabled' | 'deleted' | 'latecomer', string>;

  const redeliver = (id: string, attributes?: Record<string, unknown>, as = owner) =>
    stack.call('POST', `/events/${id}/redeliver`, {
      as,
      body: attributes === undefined ? undefined : { data: { type: 'redeliveries', attributes } },
    });
  const byEndpoint = (rows: Record<string, any>[]) => Object.fromEntries(rows.map((row) => [row.endpoint_id, row]));

  beforeAll(async () => {
    owner = await stack.createAccount('Redeliveries');
    endpoints.all = await webhookId(owner, { events: ['*'] });
    endpoints.merchants = await webhookId(owner, { events: ['merchant.created'] });
    endpoints.payments = await webhookId(owner, { events: ['payment.completed'] });
    endpoints.disabled = await webhookId(owner, { events: ['*'] });
    endpoints.deleted = await webhookId(owner, { events: ['merchant.created'] });
    await createMerchant(stack, owner);
    const [event] = await stack.sql`select id from events where account_id = ${owner.accountId}`;
    eventId = event!.id;
    // What the relay and the workers left: "all" got it, "payments" (subscribed back then) failed, "deleted" got it.
    await stack.sql`
      insert into webhook_deliveries (id, account_id, endpoint_id, event_id, status, attempts, last_status_code,
        last_error, enqueued_at, completed_at, created_at, updated_at) values
        ('del_00000000000000000000000001', ${owner.accountId}, ${endpoints.all}, ${eventId}, 'succeeded', 1, 200,
          null, now(), now(), now() - interval '1 hour', now() - interval '1 hour'),
        ('del_00000000000000000000000002', ${owner.accountId}, ${endpoints.payments}, ${eventId}, 'failed', 8, 500,
          'HTTP 500', now(), now(), now() - interval '1 hour', now() - interval '1 hour'),
        ('del_00000000000000000000000003', ${owner.accountId}, ${endpoints.deleted}, ${eventId}, 'succeeded', 1, 200,
          null, now(), now(), now() - interval '1 hour', now() - interval '1 hour')`;
    await stack.sql`delete from unrelayed_events where event_id = ${eventId}`;
    await stack.call('PUT', `/webhooks/${endpoints.disabled}`, { as: owner, body: webhookBody({ enabled: false }) });
    await stack.call('DELETE', `/webhooks/${endpoints.deleted}`, { as: owner });
  });

  it('with endpointId, reopens that endpoint’s delivery only', async () => {
    const res = await redeliver(eventId, { endpointId: endpoints.all });
    expect(res.status).toBe(202);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0]).toMatchObject({
      type: 'deliveries',
      id: 'del_00000000000000000000000001',
      attributes: {
        endpointId: endpoints.all,
        eventId,
        eventType: 'merchant.created',
        status: 'pending',
        attempts: 1,
        redeliveries: 1,
        lastStatusCode: 200,
        completedAt: null,
        nextAttemptAt: null,
      },
    });
    const rows = byEndpoint(await deliveriesOf(eventId));
    expect(Object.keys(rows)).toHaveLength(3);
    expect(rows[endpoints.all]).toMatchObject({
      status: 'pending',
      enqueued_at: null,
      redeliveries: 1,
      completed_at: null,
      next_attempt_at: null,
    });
    expect(rows[endpoints.payments]).toMatchObject({ status: 'failed', redeliveries: 0 });
    expect(rows[endpoints.deleted]).toMatchObject({ status: 'succeeded', redeliveries: 0 });
  });

  it('with endpointId of an endpoint without a delivery, creates one', async () => {
    const res = await redeliver(eventId, { endpointId: endpoints.merchants });
    expect(res.status).toBe(202);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0].id).toMatch(/^del_/);
    expect(res.body.data[0].attributes).toMatchObject({
      endpointId: endpoints.merchants,
      status: 'pending',
      attempts: 0,
      redeliveries: 0,
      attemptLog: [],
    });
    const rows = byEndpoint(await deliveriesOf(eventId));
    expect(Object.keys(rows)).toHaveLength(4);
    expect(rows[endpoints.merchants]).toMatchObject({ status: 'pending', enqueued_at: null, redeliveries: 0 });
  });

  it('without a body, reopens every delivery and creates the missing ones, leaving out disabled and deleted endpoints', async () => {
    // Simulate the relay having enqueued what is pending, and a new subscriber since the event.
    await stack.sql`update webhook_deliveries set enqueued_at = now() where event_id = ${eventId}`;
    endpoints.latecomer = await webhookId(owner, { events: ['merchant.created', 'merchant.updated'] });

    const res = await redeliver(eventId);
    expect(res.status).toBe(202);
    const shown = res.body.data.map((item: { attributes: { endpointId: string } }) => item.attributes.endpointId);
    expect(shown.sort()).toEqual([endpoints.all, endpoints.merchants, endpoints.payments, endpoints.latecomer].sort());

    const rows = byEndpoint(await deliveriesOf(eventId));
    expect(Object.keys(rows).sort()).toEqual(
      [endpoints.all, endpoints.merchants, endpoints.payments, endpoints.deleted, endpoints.latecomer].sort(),
    );
    for (const [endpoint, redeliveries] of [
      [endpoints.all, 2],
      [endpoints.merchants, 1],
      [endpoints.payments, 1],
      [endpoints.latecomer, 0],
    ] as const) {
      expect(rows[endpoint]).toMatchObject({
        status: 'pending',
        enqueued_at: null,
        completed_at: null,
        next_attempt_at: null,
        redeliveries,
      });
    }
    expect(rows[endpoints.payments]).toMatchObject({ attempts: 8, last_error: 'HTTP 500' });
    expect(rows[endpoints.deleted]).toMatchObject({ status: 'succeeded', redeliveries: 0 });
    expect(rows[endpoints.disabled]).toBeUndefined();
  });

  it('attributes without endpointId, or a body of {}, mean every endpoint too', async () => {
    const res = await redeliver(eventId, {});
    expect(res.status).toBe(202);
    expect(res.body.data).toHaveLength(4);
    const empty = await stack.call('POST', `/events/${eventId}/redeliver`, { as: owner, body: {} });
    expect(empty.status).toBe(202);
    expect(empty.body.data).toHaveLength(4);
    const [all] = await stack.sql`select redeliveries from webhook_deliveries where endpoint_id = ${endpoints.all}`;
    expect(all!.redeliveries).toBe(4);
  });

  it('wakes the relay: NOTIFY pps_outbox when the redelivery commits', async () => {
    let woken = 0;
    const listener = await stack.sql.listen('pps_outbox', () => {
      woken += 1;
    });
    try {
      expect((await redeliver(eventId, { endpointId: endpoints.merchants })).status).toBe(202);
      await expect.poll(() => woken, { timeout: 2000 }).toBeGreaterThan(0);
    } finally {
      await listener.unlisten();
    }
  });

  it('a webhook.test event goes again to its own endpoint only, even without endpointId', async () => {
    const tested = await webhookId(owner, { events: ['webhook.test'] });
    const testEvent = (await stack.call('POST', `/webhooks/${tested}/test`, { as: owner })).body.data.id;
    const res = await redeliver(testEvent);
    expect(res.status).toBe(202);
    expect(res.body.data.map((item: { attributes: { endpointId: string } }) => item.attributes.endpointId)).toEqual([
      tested,
    ]);
    const rows = await deliveriesOf(testEvent);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ endpoint_id: tested, redeliveries: 1, status: 'pending' });
  });

  it('answers an empty list when no endpoint takes the event', async () => {
    const lonely = await stack.createAccount('Lonely');
    await createMerchant(stack, lonely);
    const [event] = await stack.sql`select id from events where account_id = ${lonely.accountId}`;
    const res = await redeliver(event!.id, undefined, lonely);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ data: [] });
  });

  it('endpointId errors point at /data/attributes/endpointId', async () => {
    const at = pointer('endpointId');
    expectError(await redeliver(eventId, { endpointId: UNKNOWN_WEBHOOK }), 404, 'webhook_not_found', at);
    expectError(await redeliver(eventId, { endpointId: 'nope' }), 404, 'webhook_not_found', at);
    expectError(await redeliver(eventId, { endpointId: endpoints.deleted }), 404, 'webhook_not_found', at);
    expectError(await redeliver(eventId, { endpointId: await webhookId(globex) }), 403, 'webhook_forbidden', at);
    expectError(await redeliver(eventId, { endpointId: endpoints.disabled }), 422, 'webhook_disabled', at);
    expectError(await redeliver(eventId, { endpointId: 42 }), 400, 'invalid_field', at);
    const wrongType = await stack.call('POST', `/events/${eventId}/redeliver`, {
      as: owner,
      body: { data: { type: 'deliveries', attributes: {} } },
    });
    expectError(wrongType, 400, 'invalid_field', '/data/type');
    const [disabled] = await stack.sql`select count(*)::int as n from webhook_deliveries
      where endpoint_id = ${endpoints.disabled}`;
    expect(disabled!.n).toBe(0);
  });

  describe('with the four headers and no body', () => {
    let caller: Credentials;
    let event: string;
    let endpoint: string;
    const redeliveriesOf = async () =>
      (await deliveriesOf(event)).map((row) => ({ endpoint: row.endpoint_id, redeliveries: row.redeliveries }));

    beforeAll(async () => {
      caller = await stack.createAccount('Bodiless redeliveries');
      endpoint = await webhookId(caller, { events: ['merchant.created'] });
      await createMerchant(stack, caller);
      const [row] = await stack.sql`select id from events where account_id = ${caller.accountId}`;
      event = row!.id;
    });

    it('no body, or Content-Length: 0, means every endpoint, as without a Content-Type', async () => {
      expect(await redeliveriesOf()).toEqual([]);
      for (const [index, headers] of emptyBodies.entries()) {
        const res = await bodiless(`/events/${event}/redeliver`, caller, headers);
        expect(res.status).toBe(202);
        expect(res.body.data).toHaveLength(1);
        // Created by the first call, reopened (and counted) by the second.
        expect(res.body.data[0].attributes).toMatchObject({ endpointId: endpoint, status: 'pending' });
        expect(await redeliveriesOf()).toEqual([{ endpoint, redeliveries: index }]);
      }
    });

    it('a body that is there is still JSON and still validated: malformed or blank 400 malformed_json', async () => {
      const before = await redeliveriesOf();
      for (const raw of ['{"data": ', ' ', '\n']) {
        const res = await stack.call('POST', `/events/${event}/redeliver`, {
          as: caller,
          headers: { 'content-type': 'application/json' },
          raw,
        });
        expectError(res, 400, 'malformed_json');
      }
      const wrongShape = await stack.call('POST', `/events/${event}/redeliver`, {
        as: caller,
        body: { data: { type: 'redeliveries', attributes: { endpointId: 42 } } },
      });
      expectError(wrongShape, 400, 'invalid_field', pointer('endpointId'));
      expect(await redeliveriesOf()).toEqual(before);
    });

    it('no body still names the event: 404 unknown, 403 another account’s', async () => {
      expectError(await bodiless(`/events/${UNKNOWN_EVENT}/redeliver`, caller), 404, 'event_not_found');
      expectError(await bodiless(`/events/${event}/redeliver`, globex), 403, 'event_forbidden');
    });
  });

  it('404 for an unknown event, 403 event_forbidden for another account’s', async () => {
    expectError(await redeliver(UNKNOWN_EVENT), 404, 'event_not_found');
    expectError(await redeliver('evt_x'), 404, 'event_not_found');
    expectError(await redeliver(eventId, undefined, globex), 403, 'event_forbidden');
    expectError(await redeliver(eventId, { endpointId: endpoints.all }, globex), 403, 'event_forbidden');
  });
});
