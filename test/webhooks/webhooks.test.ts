import { FieldCipher } from '@pps/shared/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';
import { base, emptyBodies, ISO, pointer, UNKNOWN_WEBHOOK, webhookBody, webhookCalls } from './webhooks-api';

// The webhook endpoints' API: create, read, update and delete, the production URL guard, and the OpenAPI document.
// Their actions (rotate, test, recover, deliveries) are in webhook-actions.test.ts, the events' API in events.test.ts.

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

const { createWebhook, webhookId, endpointRow, bodiless } = webhookCalls(() => stack);

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
