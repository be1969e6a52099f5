import { FieldCipher } from '@pps/shared/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';
import { base, emptyBodies, ISO, pointer, UNKNOWN_WEBHOOK, webhookBody, webhookCalls } from './webhooks-api';

// An endpoint's actions: rotating its secret, a test event, recovering failed deliveries, and its deliveries' list.

let stack: TestStack;
let acme: Credentials;
let globex: Credentials;
let cipher: FieldCipher;

beforeAll(async () => {
  stack = await createTestStack();
  acme = await stack.createAccount('Acme Platform');
  globex = await stack.createAccount('Globex Platform');
  cipher = new FieldCipher(stack.config.DATA_ENCRYPTION_KEYS);
});
afterAll(() => stack.close());

const { createWebhook, webhookId, endpointRow, deliveriesOf, bodiless } = webhookCalls(() => stack);

describe('POST /webhooks/{id}/rotate-secret', () => {
  it('answers a new secret once; the old one signs on until now + WEBHOOK_SECRET_OVERLAP_HOURS', async () => {
    const created = await createWebhook(acme);
    const id = created.body.data.id;
    const oldSecret = created.body.data.attributes.secret;
    const before = Date.now();
    const res = await stack.call('POST', `/webhooks/${id}/rotate-secret`, { as: acme });
    const after = Date.now();
    expect(res.status).toBe(200);
    expect(res.body.links.self).toBe(`${base}/webhooks/${id}`);
    const newSecret = res.body.data.attributes.secret;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    expect(JSON.stringify(res.body)).not.toContain(oldSecret);
    expect(res.body.data.attributes).toMatchObject({ url: created.body.data.attributes.url, enabled: true });

    const row = await endpointRow(id);
    expect(cipher.decrypt(row.secret_enc)).toBe(newSecret);
    expect(cipher.decrypt(row.previous_secret_enc)).toBe(oldSecret);
    const overlapMs = stack.config.WEBHOOK_SECRET_OVERLAP_HOURS * 3_600_000;
    expect(overlapMs).toBe(24 * 3_600_000);
    const expires = new Date(row.previous_secret_expires_at).getTime();
    expect(expires).toBeGreaterThanOrEqual(before + overlapMs - 1000);
    expect(expires).toBeLessThanOrEqual(after + overlapMs + 1000);

    const shown = await stack.call('GET', `/webhooks/${id}`, { as: acme });
    expect(JSON.stringify(shown.body)).not.toMatch(/secret/i);

    // A second rotation keeps only the secret it replaces.
    const again = await stack.call('POST', `/webhooks/${id}/rotate-secret`, { as: acme });
    const rotated = await endpointRow(id);
    expect(cipher.decrypt(rotated.secret_enc)).toBe(again.body.data.attributes.secret);
    expect(cipher.decrypt(rotated.previous_secret_enc)).toBe(newSecret);
  });

  it('takes the four headers with no body, or Content-Length: 0, as without a Content-Type', async () => {
    const created = await createWebhook(acme);
    const id = created.body.data.id;
    let previous = created.body.data.attributes.secret;
    for (const headers of emptyBodies) {
      const res = await bodiless(`/webhooks/${id}/rotate-secret`, acme, headers);
      expect(res.status).toBe(200);
      const secret = res.body.data.attributes.secret;
      expect(secret).toMatch(/^whsec_/);
      expect(secret).not.toBe(previous);
      const row = await endpointRow(id);
      expect(cipher.decrypt(row.secret_enc)).toBe(secret);
      expect(cipher.decrypt(row.previous_secret_enc)).toBe(previous);
      previous = secret;
    }
  });

  it('404 unknown, 403 another account’s (whose secret stays)', async () => {
    expectError(
      await stack.call('POST', `/webhooks/${UNKNOWN_WEBHOOK}/rotate-secret`, { as: acme }),
      404,
      'webhook_not_found',
    );
    const theirs = await webhookId(globex);
    const before = await endpointRow(theirs);
    expectError(await stack.call('POST', `/webhooks/${theirs}/rotate-secret`, { as: acme }), 403, 'webhook_forbidden');
    expect((await endpointRow(theirs)).secret_enc).toBe(before.secret_enc);
  });
});

describe('POST /webhooks/{id}/test', () => {
  it('writes a relayed webhook.test event and exactly one delivery, to this endpoint only', async () => {
    const tester = await stack.createAccount('Tester');
    const id = await webhookId(tester, { events: ['merchant.created'], description: 'under test' });
    const other = await webhookId(tester, { events: ['*'] });
    const res = await stack.call('POST', `/webhooks/${id}/test`, { as: tester });
    expect(res.status).toBe(202);
    const eventId = res.body.data.id;
    expect(eventId).toMatch(/^evt_/);
    expect(res.body.links.self).toBe(`${base}/events/${eventId}`);
    const endpoint = (await stack.call('GET', `/webhooks/${id}`, { as: tester })).body.data;
    expect(res.body.data).toEqual({
      type: 'events',
      id: eventId,
      attributes: {
        type: 'webhook.test',
        resourceType: 'webhooks',
        resourceId: id,
        sequence: 1,
        payload: {
          type: 'webhook.test',
          timestamp: res.body.data.attributes.createdAt,
          data: { ...endpoint, previousStatus: null, sequence: 1 },
        },
        createdAt: expect.stringMatching(ISO),
      },
    });
    expect(JSON.stringify(res.body)).not.toMatch(/secret|whsec_/i);

    const [event] = await stack.sql`
      select account_id, exists (select 1 from unrelayed_events where event_id = ${eventId}) as queued
      from events where id = ${eventId}`;
    expect(event!.account_id).toBe(tester.accountId);
    // Not queued for the relay: its one delivery is made here.
    expect(event!.queued).toBe(false);
    const deliveries = await deliveriesOf(eventId);
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({
      account_id: tester.accountId,
      endpoint_id: id,
      event_id: eventId,
      status: 'pending',
      attempts: 0,
      redeliveries: 0,
      enqueued_at: null,
      completed_at: null,
    });
    expect(deliveries[0]!.id).toMatch(/^del_/);
    const [others] = await stack.sql`select count(*)::int as n from webhook_deliveries where endpoint_id = ${other}`;
    expect(others!.n).toBe(0);

    // The second test event of the endpoint comes next in its sequence.
    const second = await stack.call('POST', `/webhooks/${id}/test`, { as: tester });
    expect(second.body.data.attributes.sequence).toBe(2);
  });

  it('takes the four headers with no body, or Content-Length: 0, as without a Content-Type', async () => {
    const id = await webhookId(acme, { events: ['webhook.test'] });
    for (const [index, headers] of emptyBodies.entries()) {
      const res = await bodiless(`/webhooks/${id}/test`, acme, headers);
      expect(res.status).toBe(202);
      expect(res.body.data.attributes).toMatchObject({ type: 'webhook.test', resourceId: id, sequence: index + 1 });
      const deliveries = await deliveriesOf(res.body.data.id);
      expect(deliveries).toHaveLength(1);
      expect(deliveries[0]).toMatchObject({ endpoint_id: id, status: 'pending', attempts: 0 });
    }
  });

  it('422 webhook_disabled for a disabled endpoint; 404 unknown; 403 another account’s', async () => {
    const id = await webhookId(acme);
    await stack.call('PUT', `/webhooks/${id}`, { as: acme, body: webhookBody({ enabled: false }) });
    expectError(await stack.call('POST', `/webhooks/${id}/test`, { as: acme }), 422, 'webhook_disabled');
    const [written] = await stack.sql`select count(*)::int as n from events where resource_id = ${id}`;
    expect(written!.n).toBe(0);
    expectError(await stack.call('POST', `/webhooks/${UNKNOWN_WEBHOOK}/test`, { as: acme }), 404, 'webhook_not_found');
    expectError(
      await stack.call('POST', `/webhooks/${await webhookId(globex)}/test`, { as: acme }),
      403,
      'webhook_forbidden',
    );
  });
});

describe('POST /webhooks/{id}/recover', () => {
  /** An endpoint with failed deliveries made 3 h, 2 h and 1 h ago, one succeeded and one pending; their ids. */
  async function withFailures(as: Credentials) {
    const id = await webhookId(as);
    const ids: Record<string, string> = {};
    const rows = [
      ['old', 'failed', 3],
      ['middle', 'failed', 2],
      ['recent', 'failed', 1],
      ['fine', 'succeeded', 1],
      ['waiting', 'pending', 1],
    ] as const;
    for (const [name, status, hoursAgo] of rows) {
      const test = await stack.call('POST', `/webhooks/${id}/test`, { as });
      const eventId = test.body.data.id as string;
      const at = new Date(Date.now() - hoursAgo * 3_600_000).toISOString();
      const [row] = await stack.sql`
        update webhook_deliveries set status = ${status}, attempts = 8, enqueued_at = ${at}, created_at = ${at},
          completed_at = ${status === 'pending' ? null : at}
        where event_id = ${eventId} returning id`;
      ids[name] = row!.id;
    }
    return { id, ids };
  }
  const statuses = async (ids: Record<string, string>) =>
    Object.fromEntries(
      (
        await stack.sql`select id, status, redeliveries from webhook_deliveries where id in ${stack.sql(Object.values(ids))}`
      ).map((row) => [Object.keys(ids).find((name) => ids[name] === row.id), `${row.status}/${row.redeliveries}`]),
    );

  it('reopens the failed deliveries made in the window, wakes the relay, and answers how many', async () => {
    const { id, ids } = await withFailures(acme);
    const since = new Date(Date.now() - 150 * 60_000).toISOString(); // 2 h 30 min ago
    const until = new Date(Date.now() - 90 * 60_000).toISOString(); // 1 h 30 min ago
    const res = await stack.call('POST', `/webhooks/${id}/recover`, {
      as: acme,
      body: { data: { type: 'recoveries', attributes: { since, until } } },
    });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      data: { type: 'recoveries', id, attributes: { endpointId: id, since, until, reopened: 1 } },
    });
    expect(await statuses(ids)).toEqual({
      old: 'failed/0',
      middle: 'pending/1',
      recent: 'failed/0',
      fine: 'succeeded/0',
      waiting: 'pending/0',
    });
    const [middle] =
      await stack.sql`select enqueued_at, completed_at from webhook_deliveries where id = ${ids.middle!}`;
    expect(middle).toEqual({ enqueued_at: null, completed_at: null }); // for the relay to enqueue

    // `since` alone: from then on.
    const recent = await stack.call('POST', `/webhooks/${id}/recover`, {
      as: acme,
      body: { data: { type: 'recoveries', attributes: { since: until } } },
    });
    expect(recent.body.data.attributes).toMatchObject({ since: until, until: null, reopened: 1 });
  });

  it('takes the four headers with no body, or {}, as the whole window', async () => {
    const { id, ids } = await withFailures(acme);
    const res = await bodiless(`/webhooks/${id}/recover`, acme);
    expect(res.status).toBe(202);
    expect(res.body.data.attributes).toEqual({ endpointId: id, since: null, until: null, reopened: 3 });
    expect(Object.values(await statuses(ids)).filter((status) => status === 'pending/1')).toHaveLength(3);
    const again = await stack.call('POST', `/webhooks/${id}/recover`, { as: acme, body: {} });
    expect(again.body.data.attributes.reopened).toBe(0); // nothing failed is left
  });

  it('refuses a bad window, a disabled endpoint and another account’s, reopening nothing', async () => {
    const { id, ids } = await withFailures(acme);
    const before = await statuses(ids);
    const recover = (attributes: Record<string, unknown>, type = 'recoveries', as = acme, target = id) =>
      stack.call('POST', `/webhooks/${target}/recover`, { as, body: { data: { type, attributes } } });
    const inverted = expectError(
      await recover({ since: '2026-11-20T00:00:00Z', until: '2026-11-19T00:00:00Z' }),
      400,
      'invalid_date_range',
      pointer('since'),
    );
    expect(inverted.detail).toContain('since');
    expectError(await recover({ since: 'yesterday' }), 400, 'invalid_field', pointer('since'));
    expectError(await recover({ until: 42 }), 400, 'invalid_field', pointer('until'));
    expectError(await recover({}, 'redeliveries'), 400, 'invalid_field', '/data/type');
    expectError(await recover({}, 'recoveries', globex), 403, 'webhook_forbidden');
    expectError(await recover({}, 'recoveries', acme, UNKNOWN_WEBHOOK), 404, 'webhook_not_found');
    await stack.call('PUT', `/webhooks/${id}`, { as: acme, body: webhookBody({ enabled: false }) });
    expectError(await recover({}), 422, 'webhook_disabled');
    expect(await statuses(ids)).toEqual(before);
  });
});

describe('GET /webhooks/{id}/deliveries', () => {
  it('lists deliveries newest first with their attempt log, oldest attempt first', async () => {
    const owner = await stack.createAccount('Deliveries');
    const id = await webhookId(owner);
    const first = (await stack.call('POST', `/webhooks/${id}/test`, { as: owner })).body.data.id;
    const second = (await stack.call('POST', `/webhooks/${id}/test`, { as: owner })).body.data.id;
    const [delivery] = await stack.sql`select id from webhook_deliveries where event_id = ${first}`;
    const deliveryId = delivery!.id as string;
    // As the delivery workers record them: a timeout, a 500, then a 200.
    await stack.sql`
      insert into webhook_attempts (delivery_id, attempt, status_code, latency_ms, error, created_at) values
        (${deliveryId}, 1, null, 15000, 'timed out after 15000 ms', '2026-11-22T10:00:00.000Z'),
        (${deliveryId}, 2, 500, 120, 'HTTP 500: oops', '2026-11-22T10:00:05.000Z'),
        (${deliveryId}, 3, 200, 35, null, '2026-11-22T10:05:05.000Z')`;
    await stack.sql`
      update webhook_deliveries set status = 'succeeded', attempts = 3, last_status_code = 200,
        enqueued_at = now(), completed_at = '2026-11-22T10:05:05.035Z'
      where id = ${deliveryId}`;

    const res = await stack.call('GET', `/webhooks/${id}/deliveries`, { as: owner });
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ total: 2, limit: 25, offset: 0, hasMore: false });
    expect(res.body.links.self).toBe(`${base}/webhooks/${id}/deliveries`);
    expect(res.body.data.map((item: { attributes: { eventId: string } }) => item.attributes.eventId)).toEqual([
      second,
      first,
    ]);
    const pending = res.body.data[0];
    expect(pending.type).toBe('deliveries');
    expect(pending.attributes).toMatchObject({
      endpointId: id,
      eventType: 'webhook.test',
      status: 'pending',
      attempts: 0,
      redeliveries: 0,
      lastStatusCode: null,
      lastError: null,
      nextAttemptAt: null,
      completedAt: null,
      attemptLog: [],
    });
    expect(res.body.data[1]).toEqual({
      type: 'deliveries',
      id: deliveryId,
      attributes: {
        endpointId: id,
        eventId: first,
        eventType: 'webhook.test',
        status: 'succeeded',
        attempts: 3,
        redeliveries: 0,
        lastStatusCode: 200,
        lastError: null,
        nextAttemptAt: null,
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
        completedAt: '2026-11-22T10:05:05.035Z',
        attemptLog: [
          {
            attempt: 1,
            statusCode: null,
            latencyMs: 15000,
            error: 'timed out after 15000 ms',
            createdAt: '2026-11-22T10:00:00.000Z',
          },
          {
            attempt: 2,
            statusCode: 500,
            latencyMs: 120,
            error: 'HTTP 500: oops',
            createdAt: '2026-11-22T10:00:05.000Z',
          },
          { attempt: 3, statusCode: 200, latencyMs: 35, error: null, createdAt: '2026-11-22T10:05:05.000Z' },
        ],
      },
    });

    const page = await stack.call('GET', `/webhooks/${id}/deliveries?limit=1&offset=1`, { as: owner });
    expect(page.body.data.map((item: { id: string }) => item.id)).toEqual([deliveryId]);
    expect(page.body.meta).toEqual({ total: 2, limit: 1, offset: 1, hasMore: false });
  });

  it('404 unknown, 403 another account’s', async () => {
    expectError(
      await stack.call('GET', `/webhooks/${UNKNOWN_WEBHOOK}/deliveries`, { as: acme }),
      404,
      'webhook_not_found',
    );
    expectError(
      await stack.call('GET', `/webhooks/${await webhookId(globex)}/deliveries`, { as: acme }),
      403,
      'webhook_forbidden',
    );
  });
});
