import { FieldCipher } from '@pps/shared/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../fixtures/merchants';
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';

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

const base = 'http://localhost:8080';
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UNKNOWN_WEBHOOK = 'whk_0000000000000000000000000a';
const UNKNOWN_EVENT = 'evt_0000000000000000000000000a';
const pointer = (path: string) => `/data/attributes/${path}`;
const webhookBody = (attributes: Record<string, unknown>) => ({ data: { type: 'webhooks', attributes } });

const createWebhook = (as: Credentials, attributes: Record<string, unknown> = {}) =>
  stack.call('POST', '/webhooks', {
    as,
    body: webhookBody({ url: 'https://receiver.example.com/hooks', events: ['*'], ...attributes }),
  });

/** Creates an endpoint and returns its id (throws with the body on failure). */
async function webhookId(as: Credentials, attributes: Record<string, unknown> = {}): Promise<string> {
  const res = await createWebhook(as, attributes);
  if (res.status !== 201) throw new Error(`webhook creation failed: ${JSON.stringify(res.body)}`);
  return res.body.data.id;
}

const endpointRow = async (id: string) =>
  (await stack.sql`select * from webhook_endpoints where id = ${id}`)[0] as Record<string, any>;
const deliveriesOf = (eventId: string) =>
  stack.sql`select * from webhook_deliveries where event_id = ${eventId} order by endpoint_id`;

/** As README's clients call: the four headers, `Content-Type: application/json` included, and no body at all. */
const bodiless = (path: string, as: Credentials, headers: Record<string, string> = {}, method = 'POST') =>
  stack.call(method, path, { as, headers: { 'content-type': 'application/json', ...headers } });
/** No body, then an empty one declared with `Content-Length: 0`. */
const emptyBodies: Record<string, string>[] = [{}, { 'content-length': '0' }];

describe('POST /webhooks', () => {
  it('creates an endpoint and shows its whsec_ secret, stored only encrypted', async () => {
    const res = await createWebhook(acme, {
      url: 'https://receiver.example.com/pps?tenant=1',
      events: ['payment.completed', 'payment.failed'],
      description: '  Order system ',
    });
    expect(res.status).toBe(201);
    const id = res.body.data.id;
    expect(id).toMatch(/^whk_[0-9a-z]{26}$/);
    const secret = res.body.data.attributes.secret;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(res.body).toEqual({
      links: { self: `${base}/webhooks/${id}` },
      data: {
        type: 'webhooks',
        id,
        attributes: {
          url: 'https://receiver.example.com/pps?tenant=1',
          events: ['payment.completed', 'payment.failed'],
          description: 'Order system',
          enabled: true,
          apiVersion: '2026-11-29',
          disabledReason: null,
          secret,
          createdAt: expect.stringMatching(ISO),
          updatedAt: res.body.data.attributes.createdAt,
        },
      },
    });
    const row = await endpointRow(id);
    expect(row.account_id).toBe(acme.accountId);
    expect(row.secret_enc).not.toContain(secret);
    expect(row.secret_enc).not.toContain(secret.slice('whsec_'.length));
    expect(cipher.decrypt(row.secret_enc)).toBe(secret);
    expect(row.previous_secret_enc).toBeNull();
    expect(row.deleted_at).toBeNull();
  });

  it('takes ["*"] with no description, and drops repeated types', async () => {
    const all = await createWebhook(acme, { events: ['*'] });
    expect(all.status).toBe(201);
    expect(all.body.data.attributes).toMatchObject({ events: ['*'], description: null });
    const repeated = await createWebhook(acme, { events: ['merchant.created', 'webhook.test', 'merchant.created'] });
    expect(repeated.body.data.attributes.events).toEqual(['merchant.created', 'webhook.test']);
  });

  it('400 invalid_webhook_url for an ftp URL, a non-URL, credentials, and a missing url', async () => {
    for (const url of ['ftp://receiver.example.com/hooks', 'not a url', 'https://user:pass@receiver.example.com/']) {
      expectError(await createWebhook(acme, { url }), 400, 'invalid_webhook_url', pointer('url'));
    }
    expectError(
      await createWebhook(acme, { url: `https://receiver.example.com/${'a'.repeat(2048)}` }),
      400,
      'invalid_webhook_url',
      pointer('url'),
    );
    expectError(await createWebhook(acme, { url: undefined }), 400, 'missing_field', pointer('url'));
    expectError(await createWebhook(acme, { url: 42 }), 400, 'invalid_field', pointer('url'));
  });

  it('400 invalid_event_type pointing at each unknown type', async () => {
    const res = await createWebhook(acme, { events: ['payment.completed', 'payment.exploded', 'nope'] });
    expectError(res, 400, 'invalid_event_type', pointer('events/1'));
    expectError(res, 400, 'invalid_event_type', pointer('events/2'));
    expect(res.body.errors).toHaveLength(2);
    expectError(
      await createWebhook(acme, { events: ['payment.completed', '*'] }),
      400,
      'invalid_event_type',
      pointer('events/1'),
    );
  });

  it('400 for an empty events array, a missing one, and a description over 500 characters', async () => {
    expectError(await createWebhook(acme, { events: [] }), 400, 'invalid_field', pointer('events'));
    expectError(await createWebhook(acme, { events: undefined }), 400, 'missing_field', pointer('events'));
    expectError(await createWebhook(acme, { events: 'payment.completed' }), 400, 'invalid_field', pointer('events'));
    expectError(
      await createWebhook(acme, { description: 'x'.repeat(501) }),
      400,
      'invalid_field',
      pointer('description'),
    );
    expect((await createWebhook(acme, { description: 'x'.repeat(500) })).status).toBe(201);
  });

  it('400 malformed_json for an empty body sent as JSON, as before: its body is required', async () => {
    const [before] =
      await stack.sql`select count(*)::int as n from webhook_endpoints where account_id = ${acme.accountId}`;
    for (const headers of emptyBodies) expectError(await bodiless('/webhooks', acme, headers), 400, 'malformed_json');
    const id = await webhookId(acme);
    for (const headers of emptyBodies) {
      expectError(await bodiless(`/webhooks/${id}`, acme, headers, 'PUT'), 400, 'malformed_json');
    }
    const [after] =
      await stack.sql`select count(*)::int as n from webhook_endpoints where account_id = ${acme.accountId}`;
    expect(after!.n).toBe(before!.n + 1);
  });

  it('400 for a wrong data.type; 401 without credentials', async () => {
    const res = await stack.call('POST', '/webhooks', {
      as: acme,
      body: { data: { type: 'webhook', attributes: { url: 'https://receiver.example.com/', events: ['*'] } } },
    });
    expectError(res, 400, 'invalid_field', '/data/type');
    expect((await stack.call('POST', '/webhooks', { body: webhookBody({}) })).status).toBe(401);
  });

  it('outside production, private targets are accepted (local receivers)', async () => {
    expect((await createWebhook(acme, { url: 'http://127.0.0.1:9999/hooks' })).status).toBe(201);
  });
});

describe('GET /webhooks/{id} and GET /webhooks', () => {
  let lister: Credentials;
  const ids: string[] = [];

  beforeAll(async () => {
    lister = await stack.createAccount('Lister');
    for (const n of [0, 1, 2, 3]) ids.push(await webhookId(lister, { description: `endpoint ${n}` }));
    await webhookId(globex);
  });

  it('returns the endpoint as created, without its secret', async () => {
    const created = await createWebhook(acme, { events: ['payment.refunded'] });
    const { secret, ...attributes } = created.body.data.attributes;
    const res = await stack.call('GET', `/webhooks/${created.body.data.id}`, { as: acme });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...created.body, data: { ...created.body.data, attributes } });
    expect(JSON.stringify(res.body)).not.toContain(secret);
    expect(JSON.stringify(res.body)).not.toMatch(/secret/i);
  });

  it('lists the account’s endpoints newest first, deleted ones left out, without secrets', async () => {
    const res = await stack.call('GET', '/webhooks', { as: lister });
    expect(res.status).toBe(200);
    expect(res.body.data.map((item: { id: string }) => item.id)).toEqual([...ids].reverse());
    expect(res.body.meta).toEqual({ total: 4, limit: 25, offset: 0, hasMore: false });
    expect(res.body.links).toEqual({ self: `${base}/webhooks`, next: null });
    expect(JSON.stringify(res.body)).not.toMatch(/secret/i);

    const page = await stack.call('GET', '/webhooks?limit=2&offset=1', { as: lister });
    expect(page.body.data.map((item: { id: string }) => item.id)).toEqual([ids[2], ids[1]]);
    expect(page.body.meta).toEqual({ total: 4, limit: 2, offset: 1, hasMore: true });
    expect(page.body.links.next).toBe(`${base}/webhooks?limit=2&startingAfter=${ids[1]}`);

    expect((await stack.call('DELETE', `/webhooks/${ids[1]}`, { as: lister })).status).toBe(204);
    const after = await stack.call('GET', '/webhooks', { as: lister });
    expect(after.body.data.map((item: { id: string }) => item.id)).toEqual([ids[3], ids[2], ids[0]]);
    expect(after.body.meta.total).toBe(3);
  });

  it('400 for pagination out of range', async () => {
    expectError(await stack.call('GET', '/webhooks?limit=0', { as: lister }), 400, 'invalid_field');
  });
});

describe('PUT /webhooks/{id}', () => {
  const put = (as: Credentials, id: string, attributes: Record<string, unknown>) =>
    stack.call('PUT', `/webhooks/${id}`, { as, body: webhookBody(attributes) });

  it('changes url, events and description, keeps the rest', async () => {
    const created = await createWebhook(acme, { description: 'before' });
    const id = created.body.data.id;
    const res = await put(acme, id, {
      url: 'https://other.example.com/hooks',
      events: ['merchant.created'],
      description: 'after',
    });
    expect(res.status).toBe(200);
    expect(res.body.links.self).toBe(`${base}/webhooks/${id}`);
    expect(res.body.data.attributes).toEqual({
      url: 'https://other.example.com/hooks',
      events: ['merchant.created'],
      description: 'after',
      enabled: true,
      apiVersion: '2026-11-29',
      disabledReason: null,
      createdAt: created.body.data.attributes.createdAt,
      updatedAt: expect.stringMatching(ISO),
    });
    const cleared = await put(acme, id, { description: null });
    expect(cleared.body.data.attributes).toMatchObject({ description: null, url: 'https://other.example.com/hooks' });
  });

  it('disables and re-enables; enabling clears disabledReason', async () => {
    const id = await webhookId(acme);
    const off = await put(acme, id, { enabled: false });
    expect(off.body.data.attributes).toMatchObject({ enabled: false, disabledReason: null });
    // As the delivery workers do on a 410.
    await stack.sql`update webhook_endpoints set disabled_reason = 'The receiver answered 410 Gone' where id = ${id}`;
    const shown = await stack.call('GET', `/webhooks/${id}`, { as: acme });
    expect(shown.body.data.attributes.disabledReason).toBe('The receiver answered 410 Gone');
    const on = await put(acme, id, { enabled: true });
    expect(on.status).toBe(200);
    expect(on.body.data.attributes).toMatchObject({ enabled: true, disabledReason: null });
  });

  it('validates like creation, and needs at least one attribute', async () => {
    const id = await webhookId(acme);
    expectError(
      await put(acme, id, { url: 'ftp://receiver.example.com/' }),
      400,
      'invalid_webhook_url',
      pointer('url'),
    );
    expectError(await put(acme, id, { events: ['payment.nope'] }), 400, 'invalid_event_type', pointer('events/0'));
    expectError(await put(acme, id, { events: [] }), 400, 'invalid_field', pointer('events'));
    expectError(await put(acme, id, { enabled: 'yes' }), 400, 'invalid_field', pointer('enabled'));
    expectError(await put(acme, id, {}), 400, 'invalid_field', '/data/attributes');
  });

  it('404 for unknown, malformed and deleted endpoints; 403 for another account’s', async () => {
    const attributes = { description: 'x' };
    expectError(await put(acme, UNKNOWN_WEBHOOK, attributes), 404, 'webhook_not_found');
    expectError(await put(acme, 'whoever', attributes), 404, 'webhook_not_found');
    expectError(await put(acme, await webhookId(globex), attributes), 403, 'webhook_forbidden');
    const gone = await webhookId(acme);
    await stack.call('DELETE', `/webhooks/${gone}`, { as: acme });
    expectError(await put(acme, gone, attributes), 404, 'webhook_not_found');
  });
});

describe('DELETE /webhooks/{id}', () => {
  it('204 with no body; the endpoint is 404 on every route afterwards', async () => {
    const id = await webhookId(acme);
    const res = await stack.call('DELETE', `/webhooks/${id}`, { as: acme });
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect((await endpointRow(id)).deleted_at).not.toBeNull();
    for (const [method, path] of [
      ['GET', `/webhooks/${id}`],
      ['DELETE', `/webhooks/${id}`],
      ['POST', `/webhooks/${id}/rotate-secret`],
      ['POST', `/webhooks/${id}/test`],
      ['GET', `/webhooks/${id}/deliveries`],
    ] as const) {
      expectError(await stack.call(method, path, { as: acme }), 404, 'webhook_not_found');
    }
  });

  it('404 unknown, 403 another account’s (which stays)', async () => {
    expectError(await stack.call('DELETE', `/webhooks/${UNKNOWN_WEBHOOK}`, { as: acme }), 404, 'webhook_not_found');
    const theirs = await webhookId(globex);
    expectError(await stack.call('DELETE', `/webhooks/${theirs}`, { as: acme }), 403, 'webhook_forbidden');
    expect((await stack.call('GET', `/webhooks/${theirs}`, { as: globex })).status).toBe(200);
  });
});

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

describe('production URL guard', () => {
  let prod: TestStack;
  let account: Credentials;

  beforeAll(async () => {
    prod = await createTestStack({
      env: {
        NODE_ENV: 'production',
        ADMIN_TOKEN: 'prod-admin-token-0123456789abcdef',
        INTERNAL_SECRET: 'prod-internal-secret-0123456789abcdef0123',
        TOKEN_SIGNING_KEYS: 'p1:prod-token-signing-key-0123456789abcdef',
        DATA_ENCRYPTION_KEYS: 'p1:cHJvZC1kYXRhLWtleS0wMTIzNDU2Nzg5YWJjZGVmMDE=',
        BLIND_INDEX_KEY: 'prod-blind-index-key-0123456789abcdef',
      },
    });
    account = await prod.createAccount('Production');
  });
  afterAll(() => prod.close());

  const create = (url: string) =>
    prod.call('POST', '/webhooks', { as: account, body: webhookBody({ url, events: ['*'] }) });

  it('refuses private, link-local and loopback targets on create and update', async () => {
    for (const url of [
      'http://127.0.0.1/hooks',
      'https://10.1.2.3/hooks',
      'http://169.254.169.254/',
      'http://[::1]/',
    ]) {
      expectError(await create(url), 400, 'invalid_webhook_url', pointer('url'));
    }
    const created = await create('https://93.184.215.14/hooks');
    expect(created.status).toBe(201);
    const update = await prod.call('PUT', `/webhooks/${created.body.data.id}`, {
      as: account,
      body: webhookBody({ url: 'http://192.168.1.10/hooks' }),
    });
    expectError(update, 400, 'invalid_webhook_url', pointer('url'));
  });
});

describe('OpenAPI document', () => {
  it('documents every webhook and event route as built', async () => {
    const doc = (await stack.call('GET', '/openapi.json')).body;
    const paths = doc.paths;
    expect(Object.keys(paths['/webhooks'])).toEqual(expect.arrayContaining(['get', 'post']));
    expect(Object.keys(paths['/webhooks/{id}'])).toEqual(expect.arrayContaining(['get', 'put', 'delete']));
    expect(Object.keys(paths['/webhooks/{id}/deliveries'])).toEqual(['get']);
    expect(Object.keys(paths['/events'])).toEqual(['get']);
    expect(Object.keys(paths['/events/{id}'])).toEqual(['get']);
    expect(Object.keys(paths['/webhooks/{id}'].delete.responses)).toContain('204');
    expect(Object.keys(paths['/webhooks/{id}/test'].post.responses)).toContain('202');
    expect(paths['/webhooks/{id}/rotate-secret'].post.requestBody).toBeUndefined();
    expect(paths['/webhooks/{id}/test'].post.requestBody).toBeUndefined();
    expect(paths['/events/{id}/redeliver'].post.requestBody.required).toBe(false);
    expect(paths['/webhooks/{id}/recover'].post.requestBody.required).toBe(false);
    expect(Object.keys(paths['/webhooks/{id}/recover'].post.responses)).toContain('202');
    expect(Object.keys(paths['/events/{id}/redeliver'].post.responses)).toContain('202');
    for (const [path, operations] of Object.entries(paths)) {
      if (!/^\/(webhooks|events)/.test(path)) continue;
      for (const operation of Object.values(operations as Record<string, { responses: object }>)) {
        expect(Object.keys(operation.responses)).not.toContain('501');
      }
    }
    const parameters = paths['/events'].get.parameters.map((parameter: { name: string }) => parameter.name);
    expect(parameters).toEqual(expect.arrayContaining(['type', 'resourceId', 'limit', 'offset']));
  });
});
