import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCardToken, createPayment, tokenv3Body } from '../fixtures/payments';
import { type Receiver, startReceiver, verifyReceived } from '../fixtures/receiver';
import { createWorld } from '../fixtures/world';
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';
import { waitFor } from '../wait';

/**
 * Webhook endpoints' API versions (docs/api.md, Versions): each endpoint's version (given when it is made, else its
 * account's pin; moved by PUT), and every event stored once, in the newest shape, and delivered to each endpoint in
 * its own version, signed over what is sent.
 */
let stack: TestStack;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  // No cached accounts: a pin set below is read at the next request.
  stack = await createTestStack({ webhooks: true, env: { OUTBOX_POLL_INTERVAL_MS: '200', AUTH_CACHE_TTL_MS: '0' } });
});
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

const subscribe = (as: Credentials, path: string, apiVersion?: string) =>
  stack.call('POST', '/webhooks', {
    as,
    body: {
      data: {
        type: 'webhooks',
        attributes: { url: receiver.url(path), events: ['*'], ...(apiVersion ? { apiVersion } : {}) },
      },
    },
  });

describe("an endpoint's version", () => {
  it("is its account's pin unless given; PUT moves it; an unknown one is refused at its pointer", async () => {
    const { creds } = await createWorld(stack, { account: 'Hooks pinned old', token: false });
    await stack.sql`update accounts set api_version = '2026-11-21' where id = ${creds.accountId}`;

    const byPin = await subscribe(creds, '/pinned');
    expect(byPin.status).toBe(201);
    expect(byPin.body.data.attributes.apiVersion).toBe('2026-11-21');
    const given = await subscribe(creds, '/given', '2026-11-29');
    expect(given.body.data.attributes.apiVersion).toBe('2026-11-29');

    const moved = await stack.call('PUT', `/webhooks/${byPin.body.data.id}`, {
      as: creds,
      body: { data: { type: 'webhooks', attributes: { apiVersion: '2026-11-29' } } },
    });
    expect(moved.status).toBe(200);
    expect(moved.body.data.attributes.apiVersion).toBe('2026-11-29');
    const read = await stack.call('GET', `/webhooks/${byPin.body.data.id}`, { as: creds });
    expect(read.body.data.attributes.apiVersion).toBe('2026-11-29');

    const count = async () =>
      (await stack.sql`select count(*)::int as n from webhook_endpoints where account_id = ${creds.accountId}`)[0]?.n;
    const before = await count();
    expectError(await subscribe(creds, '/unknown', '2026-01-01'), 400, 'invalid_field', '/data/attributes/apiVersion');
    const refused = await stack.call('PUT', `/webhooks/${given.body.data.id}`, {
      as: creds,
      body: { data: { type: 'webhooks', attributes: { apiVersion: 'latest' } } },
    });
    expectError(refused, 400, 'invalid_field', '/data/attributes/apiVersion');
    expect(await count()).toBe(before);
    const unchanged = await stack.call('GET', `/webhooks/${given.body.data.id}`, { as: creds });
    expect(unchanged.body.data.attributes.apiVersion).toBe('2026-11-29');
  });
});

describe('an event delivered in each endpoint’s version', () => {
  it('is stored once in the newest shape, and each endpoint gets its own version of it, signed', async () => {
    const { creds, merchantId } = await createWorld(stack, { account: 'Hooks two versions', token: false });
    const old = await subscribe(creds, '/v-old', '2026-11-21');
    const newest = await subscribe(creds, '/v-new');
    expect(newest.body.data.attributes.apiVersion).toBe('2026-11-29');

    const tokenId = await createCardToken(stack, creds, '4000002760003184');
    const authentication = { mode: 'automatic', returnUrl: 'https://shop.example.com/done' };
    const payment = (
      await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId, attributes: { authentication } }))
    ).body.data;
    expect(payment.attributes.status).toBe('requires_action');
    const [stored] = await stack.sql`
      select payload from events where resource_id = ${payment.id} and type = 'payment.requires_action'`;
    const storedPayload = stored?.payload as { data: { attributes: { status: string } } } | undefined;
    expect(storedPayload?.data.attributes.status).toBe('requires_action');

    const deliveredTo = async (path: string) => {
      const [request] = await waitFor(() => receiver.at(path), {
        what: `payment.requires_action at ${path}`,
        until: (requests) => requests.some((each) => each.body.includes('payment.requires_action')),
      }).then((requests) => requests.filter((each) => each.body.includes('payment.requires_action')));
      return request!;
    };
    const toOld = await deliveredTo('/v-old');
    const toNew = await deliveredTo('/v-new');
    // Each verifies with its own endpoint's secret, over the body it was sent.
    const oldEvent = verifyReceived(old.body.data.attributes.secret, toOld);
    const newEvent = verifyReceived(newest.body.data.attributes.secret, toNew);
    expect(toOld.headers['pps-version']).toBe('2026-11-21');
    expect(toNew.headers['pps-version']).toBe('2026-11-29');
    expect(oldEvent.data.attributes.status).toBe('pending');
    expect(newEvent.data.attributes.status).toBe('requires_action');
    // Nothing else differs: the old shape is the newest's with this one change.
    expect({ ...oldEvent.data.attributes, status: 'requires_action' }).toEqual(newEvent.data.attributes);
    expect(toOld.headers['webhook-id']).toBe(toNew.headers['webhook-id']);
  });
});
