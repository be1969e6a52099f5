import { bankAccountAt, currentBankAccount } from '@pps/merchants';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, personalMerchantAttributes, setMerchantStatus } from '../fixtures/merchants';
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';

let stack: TestStack;
let creds: Credentials;

beforeAll(async () => {
  stack = await createTestStack();
  creds = await stack.createAccount('Updates Platform');
});
afterAll(() => stack.close());

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const newBank = {
  bankName: 'Second Test Bank',
  accountOwnership: 'personal',
  accountType: 'savings',
  accountName: 'Jane Doe',
  accountNumber: '99988877766',
  routingNumber: '121000358',
};

const put = (path: string, attributes: Record<string, unknown>, as = creds) =>
  stack.call('PUT', path, { as, body: { data: { type: 'merchants', attributes } } });

type EventPayload = {
  type: string;
  timestamp: string;
  data: { attributes: Record<string, unknown>; previousStatus: string | null; sequence: number };
};
type EventRow = { type: string; sequence: number; payload: EventPayload; request_id: string | null };
const eventsOf = (merchantId: string) =>
  stack.sql<EventRow[]>`
    select type, sequence, payload, request_id from events where resource_id = ${merchantId} order by sequence`;

describe('bank info update', () => {
  it.each([
    ['PUT /merchants/{id} with group bankInfo', '', { group: 'bankInfo' }],
    ['PUT /merchants/{id}/bankInfo', '/bankInfo', {}],
    ['PUT /merchants/{id}/bankInfo with its group', '/bankInfo', { group: 'bankInfo' }],
  ])('%s adds a version and keeps the old one', async (_, suffix, extra) => {
    const id = await createMerchant(stack, creds);
    const res = await put(`/merchants/${id}${suffix}`, { ...extra, bankInfo: newBank });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      links: { self: `http://localhost:8080/merchants/${id}` },
      data: {
        type: 'merchants',
        id,
        attributes: {
          bankInfo: {
            bankName: 'Second Test Bank',
            accountType: 'savings',
            last4: '7766',
            updatedAt: expect.stringMatching(ISO_MS),
          },
        },
      },
    });

    const rows = await stack.sql<{ version: number; last4: string; superseded_at: string | null }[]>`
      select version, last4, superseded_at from merchant_bank_accounts where merchant_id = ${id} order by version`;
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ version: 1, last4: '6789' });
    expect(rows[0]!.superseded_at).not.toBeNull();
    expect(rows[1]).toMatchObject({ version: 2, last4: '7766', superseded_at: null });

    expect(await currentBankAccount(stack.db, id)).toMatchObject({
      version: 2,
      last4: '7766',
      bankName: 'Second Test Bank',
    });
    expect(await bankAccountAt(stack.db, id, 1)).toMatchObject({
      version: 1,
      last4: '6789',
      bankName: 'First Test Bank',
    });
    expect(await bankAccountAt(stack.db, id, 3)).toBeUndefined();

    const read = await stack.call('GET', `/merchants/${id}`, { as: creds });
    expect(read.body.data.attributes.bankInfo).toMatchObject({
      bankName: 'Second Test Bank',
      accountType: 'savings',
      last4: '7766',
      routingLast4: '0358',
      version: 2,
    });
  });

  it('keeps every version across several updates', async () => {
    const id = await createMerchant(stack, creds);
    for (const accountNumber of ['11112222', '33334444', '55556666']) {
      expect((await put(`/merchants/${id}/bankInfo`, { bankInfo: { ...newBank, accountNumber } })).status).toBe(200);
    }
    const rows = await stack.sql<{ version: number; current: boolean }[]>`
      select version, superseded_at is null as current from merchant_bank_accounts where merchant_id = ${id} order by version`;
    expect(rows).toEqual([
      { version: 1, current: false },
      { version: 2, current: false },
      { version: 3, current: false },
      { version: 4, current: true },
    ]);
  });

  it('validates the new bank account with pointers, and changes nothing when invalid', async () => {
    const id = await createMerchant(stack, creds);
    const res = await put(`/merchants/${id}`, {
      group: 'bankInfo',
      bankInfo: { ...newBank, routingNumber: '021000022', accountNumber: '12', accountType: 'gold' },
    });
    expectError(res, 400, 'invalid_routing_number', '/data/attributes/bankInfo/routingNumber');
    expectError(res, 400, 'invalid_field', '/data/attributes/bankInfo/accountNumber');
    expectError(res, 400, 'invalid_field', '/data/attributes/bankInfo/accountType');
    expectError(
      await put(`/merchants/${id}`, { group: 'bankInfo' }),
      400,
      'missing_field',
      '/data/attributes/bankInfo',
    );
    expectError(
      await put(`/merchants/${id}/bankInfo`, { bankInfo: { ...newBank, bankName: undefined } }),
      400,
      'missing_field',
      '/data/attributes/bankInfo/bankName',
    );
    expectError(
      await put(`/merchants/${id}/bankInfo`, { group: 'AVS', bankInfo: newBank }),
      400,
      'invalid_field',
      '/data/attributes/group',
    );
    const [row] = await stack.sql<{ count: number }[]>`
      select count(*)::int as count from merchant_bank_accounts where merchant_id = ${id}`;
    expect(row!.count).toBe(1);
  });
});

describe('AVS update', () => {
  it.each([
    ['PUT /merchants/{id} with group AVS', '', { group: 'AVS' }],
    ['PUT /merchants/{id}/avsMode', '/avsMode', {}],
  ])('%s sets the mode', async (_, suffix, extra) => {
    const id = await createMerchant(stack, creds);
    const res = await put(`/merchants/${id}${suffix}`, { ...extra, AVS: 'Strict' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      links: { self: `http://localhost:8080/merchants/${id}` },
      data: { type: 'merchants', id, attributes: { AVS: 'Strict', updatedAt: expect.stringMatching(ISO_MS) } },
    });
    const read = await stack.call('GET', `/merchants/${id}`, { as: creds });
    expect(read.body.data.attributes.AVS).toBe('Strict');
    expect(read.body.data.attributes.updatedAt).toBe(res.body.data.attributes.updatedAt);
    expect((await put(`/merchants/${id}/avsMode`, { AVS: 'Disabled' })).body.data.attributes.AVS).toBe('Disabled');
  });

  it('400s an unknown mode, a missing one and a missing group', async () => {
    const id = await createMerchant(stack, creds);
    expectError(
      await put(`/merchants/${id}`, { group: 'AVS', AVS: 'moderate' }),
      400,
      'invalid_field',
      '/data/attributes/AVS',
    );
    expectError(await put(`/merchants/${id}/avsMode`, {}), 400, 'missing_field', '/data/attributes/AVS');
    expectError(await put(`/merchants/${id}`, { AVS: 'Strict' }), 400, 'missing_field', '/data/attributes/group');
    expectError(
      await put(`/merchants/${id}`, { group: 'contact', AVS: 'Strict' }),
      400,
      'invalid_field',
      '/data/attributes/group',
    );
    const wrongType = await stack.call('PUT', `/merchants/${id}`, {
      as: creds,
      body: { data: { type: 'payments', attributes: { group: 'AVS', AVS: 'Strict' } } },
    });
    expectError(wrongType, 400, 'invalid_field', '/data/type');
  });

  it('refuses to change a closed merchant (422 merchant_closed)', async () => {
    const id = await createMerchant(stack, creds);
    await setMerchantStatus(stack, id, 'closed');
    expectError(await put(`/merchants/${id}/avsMode`, { AVS: 'Strict' }), 422, 'merchant_closed');
    expectError(await put(`/merchants/${id}/bankInfo`, { bankInfo: newBank }), 422, 'merchant_closed');
  });
});

describe('events', () => {
  it('writes merchant.created, merchant.updated and merchant.status_changed with the resource as GET shows it', async () => {
    const id = await createMerchant(stack, creds);
    const created = (await stack.call('GET', `/merchants/${id}`, { as: creds })).body.data;
    await put(`/merchants/${id}`, { group: 'AVS', AVS: 'Strict' });
    await put(`/merchants/${id}`, { group: 'bankInfo', bankInfo: newBank });
    await setMerchantStatus(stack, id, 'suspended', 'chargebacks');
    const final = (await stack.call('GET', `/merchants/${id}`, { as: creds })).body.data;

    const events = await eventsOf(id);
    expect(events.map((event) => [event.type, event.sequence])).toEqual([
      ['merchant.created', 1],
      ['merchant.updated', 2],
      ['merchant.updated', 3],
      ['merchant.status_changed', 4],
    ]);
    const [first, avs, bank, status] = events;
    expect(first!.payload).toEqual({
      type: 'merchant.created',
      timestamp: expect.stringMatching(ISO_MS),
      data: { ...created, previousStatus: null, sequence: 1 },
    });
    expect(avs!.payload.data.attributes.AVS).toBe('Strict');
    expect(bank!.payload.data.attributes.bankInfo).toMatchObject({ last4: '7766', version: 2 });
    expect(status!.payload.data).toEqual({ ...final, previousStatus: 'active', sequence: 4 });
    expect(final.attributes).toMatchObject({ status: 'suspended', statusReason: 'chargebacks' });
    expect(events.every((event) => typeof event.request_id === 'string')).toBe(true);
    const [owner] = await stack.sql<{ account_id: string }[]>`
      select distinct account_id from events where resource_id = ${id}`;
    expect(owner!.account_id).toBe(creds.accountId);
  });

  it('writes no event when nothing changes or the request fails', async () => {
    const id = await createMerchant(stack, creds, personalMerchantAttributes({ AVS: 'Strict' }));
    expect((await put(`/merchants/${id}/avsMode`, { AVS: 'Strict' })).status).toBe(200);
    expect((await put(`/merchants/${id}/avsMode`, { AVS: 'Nope' })).status).toBe(400);
    expect((await eventsOf(id)).map((event) => event.type)).toEqual(['merchant.created']);
  });
});
