import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  businessMerchantAttributes,
  createBusinessMerchant,
  createMerchant,
  personalMerchantAttributes,
} from '../fixtures/merchants';
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';

let stack: TestStack;
let creds: Credentials;
let other: Credentials;

beforeAll(async () => {
  stack = await createTestStack();
  creds = await stack.createAccount('Merchants Platform');
  other = await stack.createAccount('Other Platform');
});
afterAll(() => stack.close());

const create = (attributes: Record<string, unknown>, as = creds) =>
  stack.call('POST', '/merchants', { as, body: { data: { type: 'merchants', attributes } } });

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('POST /merchants', () => {
  it('creates a personal merchant: 201, active, the full resource masked, links.self its own URL', async () => {
    const attributes = personalMerchantAttributes();
    const res = await create(attributes);
    expect(res.status).toBe(201);
    const { data } = res.body;
    expect(data.id).toMatch(/^mer_[0-9a-z]{26}$/);
    expect(res.body.links.self).toBe(`http://localhost:8080/merchants/${data.id}`);
    const ssn = attributes.personalInfo.socialSecurity;
    expect(data).toEqual({
      type: 'merchants',
      id: data.id,
      attributes: {
        AVS: 'Standard',
        accountType: 'personal',
        accountName: 'Jane Doe Photography',
        status: 'active',
        statusReason: null,
        createdAt: expect.stringMatching(ISO_MS),
        updatedAt: expect.stringMatching(ISO_MS),
        email: attributes.personalInfo.email,
        miscData: '{"source":"test"}',
        fraudScreenPolicy: 'Default',
        fraudScreenSessionId: null,
        features: { secondSplit: false },
        personalInfo: {
          firstName: 'Jane',
          lastName: 'Doe',
          email: attributes.personalInfo.email,
          dayPhone: '4155550100',
          eveningPhone: '4155550101',
          birthDate: 'xxxx1985',
          socialSecurity: `xxxx${ssn.slice(-4)}`,
        },
        personalAddress: {
          line1: '1 Market St',
          line2: 'Suite 5',
          city: 'San Francisco',
          state: 'CA',
          zip: '94105',
          country: 'USA',
        },
        businessInfo: null,
        businessAddress: null,
        bankInfo: {
          bankName: 'First Test Bank',
          accountOwnership: 'personal',
          accountType: 'checking',
          accountName: 'Jane Doe',
          last4: '6789',
          routingLast4: '0021',
          version: 1,
          updatedAt: data.attributes.createdAt,
        },
        payoutSchedule: { interval: 'daily', weeklyAnchor: null, monthlyAnchor: null, delayDays: 0 },
        verificationData: attributes.verificationData,
      },
    });
  });

  it('creates a business merchant with its business info and address, EIN masked', async () => {
    const attributes = businessMerchantAttributes();
    const res = await create(attributes);
    expect(res.status).toBe(201);
    const { ein } = attributes.businessInfo;
    expect(res.body.data.attributes).toMatchObject({
      accountType: 'business',
      accountName: 'Acme Widgets LLC',
      status: 'active',
      businessInfo: {
        businessName: 'Acme Widgets LLC',
        ein: `xxxx${ein.slice(-4)}`,
        phone: '4155550199',
        url: 'https://acme.example.com',
      },
      businessAddress: { line1: '500 Howard St', city: 'San Francisco', state: 'CA', zip: '94105', country: 'USA' },
      bankInfo: { accountOwnership: 'business', last4: '4321', routingLast4: '0015' },
    });
  });

  it('normalises what clients type: phone punctuation, dashed SSN and EIN, lower-case state, ZIP+4', async () => {
    const base = businessMerchantAttributes();
    const res = await create({
      ...base,
      personalInfo: {
        ...base.personalInfo,
        dayPhone: '(415) 555-0123',
        eveningPhone: '',
        socialSecurity: '123-45-6789',
      },
      personalAddress: { ...base.personalAddress, state: 'ny', zip: '10001-1234', line2: '' },
      businessInfo: { ...base.businessInfo, ein: '46-1234567', phone: '+1 415.555.0199' },
    });
    expect(res.status).toBe(201);
    const { attributes } = res.body.data;
    expect(attributes.personalInfo.dayPhone).toBe('4155550123');
    expect(attributes.personalInfo).not.toHaveProperty('eveningPhone');
    expect(attributes.personalInfo.socialSecurity).toBe('xxxx6789');
    expect(attributes.personalAddress).toEqual({
      line1: '1 Market St',
      city: 'San Francisco',
      state: 'NY',
      zip: '10001-1234',
      country: 'USA',
    });
    expect(attributes.businessInfo).toMatchObject({ ein: 'xxxx4567', phone: '4155550199' });
  });

  it('defaults AVS to Standard and fraudScreenPolicy to Default; optional fields may be left out', async () => {
    const attributes: Record<string, unknown> = personalMerchantAttributes();
    const group = (name: string) => attributes[name] as Record<string, unknown>;
    delete attributes.AVS;
    delete attributes.fraudScreenPolicy;
    delete attributes.miscData;
    delete group('personalInfo').eveningPhone;
    delete group('personalAddress').line2;
    delete group('verificationData').emailVerifiedTimestamp;
    const res = await create(attributes);
    expect(res.status).toBe(201);
    expect(res.body.data.attributes).toMatchObject({ AVS: 'Standard', fraudScreenPolicy: 'Default', miscData: null });
  });

  it('keeps the given AVS mode, fraud policy and session id', async () => {
    const res = await create(
      personalMerchantAttributes({ AVS: 'Strict', fraudScreenPolicy: 'Disabled', fraudScreenSessionId: 'fs_123' }),
    );
    expect(res.status).toBe(201);
    expect(res.body.data.attributes).toMatchObject({
      AVS: 'Strict',
      fraudScreenPolicy: 'Disabled',
      fraudScreenSessionId: 'fs_123',
    });
  });

  it('refuses unknown attributes, each at its pointer, and creates nothing', async () => {
    const base = personalMerchantAttributes();
    const res = await create({
      ...base,
      favouriteColour: 'teal',
      personalInfo: { ...base.personalInfo, nickname: 'J' },
    });
    expectError(res, 400, 'unknown_field', '/data/attributes/favouriteColour');
    expectError(res, 400, 'unknown_field', '/data/attributes/personalInfo/nickname');
    expect((await create(base)).status).toBe(201);
  });

  it('creates the merchant pending with the sandbox trigger firstName Review', async () => {
    const base = personalMerchantAttributes();
    const res = await create({ ...base, personalInfo: { ...base.personalInfo, firstName: 'Review' } });
    expect(res.status).toBe(201);
    expect(res.body.data.attributes.status).toBe('pending');
    const active = await create({
      ...base,
      personalInfo: { ...personalMerchantAttributes().personalInfo, firstName: 'Reviewer' },
    });
    expect(active.body.data.attributes.status).toBe('active');
  });
});

describe('GET /merchants/{id}', () => {
  it('returns the merchant exactly as created', async () => {
    const created = await create(businessMerchantAttributes());
    const res = await stack.call('GET', `/merchants/${created.body.data.id}`, { as: creds });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created.body);
  });

  it("403s another account's merchant on read and on both updates", async () => {
    const id = await createMerchant(stack, creds);
    expectError(await stack.call('GET', `/merchants/${id}`, { as: other }), 403, 'merchant_forbidden');
    const avs = { data: { type: 'merchants', attributes: { group: 'AVS', AVS: 'Strict' } } };
    expectError(await stack.call('PUT', `/merchants/${id}`, { as: other, body: avs }), 403, 'merchant_forbidden');
    expectError(
      await stack.call('PUT', `/merchants/${id}/avsMode`, { as: other, body: avs }),
      403,
      'merchant_forbidden',
    );
    const bank = {
      data: { type: 'merchants', attributes: { bankInfo: personalMerchantAttributes().bankInfo } },
    };
    expectError(
      await stack.call('PUT', `/merchants/${id}/bankInfo`, { as: other, body: bank }),
      403,
      'merchant_forbidden',
    );
    const unchanged = await stack.call('GET', `/merchants/${id}`, { as: creds });
    expect(unchanged.body.data.attributes.AVS).toBe('Standard');
  });

  it('404s an unknown id and a malformed one', async () => {
    expectError(
      await stack.call('GET', '/merchants/mer_00000000000000000000000000', { as: creds }),
      404,
      'merchant_not_found',
    );
    expectError(await stack.call('GET', '/merchants/not-an-id', { as: creds }), 404, 'merchant_not_found');
    expectError(
      await stack.call('GET', '/merchants/pay_00000000000000000000000000', { as: creds }),
      404,
      'merchant_not_found',
    );
    const avs = { data: { type: 'merchants', attributes: { group: 'AVS', AVS: 'Strict' } } };
    expectError(
      await stack.call('PUT', '/merchants/mer_00000000000000000000000000', { as: creds, body: avs }),
      404,
      'merchant_not_found',
    );
  });

  it('needs the four headers (401 through the gateway)', async () => {
    const id = await createMerchant(stack, creds);
    const res = await stack.call('GET', `/merchants/${id}`);
    expect(res.status).toBe(401);
  });
});

describe('masking', () => {
  it('never returns a full SSN, EIN, birth date, account or routing number', async () => {
    const business = businessMerchantAttributes();
    const personal = personalMerchantAttributes();
    const secrets = [
      business.personalInfo.socialSecurity,
      business.businessInfo.ein,
      personal.personalInfo.socialSecurity,
      '04-12-1985',
      '000123456789',
      '000987654321',
      '021000021',
      '011000015',
    ];
    const bodies: unknown[] = [];
    const b = await create(business);
    const p = await create(personal);
    bodies.push(b.body, p.body);
    bodies.push((await stack.call('GET', `/merchants/${b.body.data.id}`, { as: creds })).body);
    bodies.push((await stack.call('GET', `/merchants/${p.body.data.id}`, { as: creds })).body);
    bodies.push((await stack.call('GET', '/merchants?limit=100', { as: creds })).body);
    const newBank = { ...personal.bankInfo, accountNumber: '55512345678', routingNumber: '121000358' };
    secrets.push('55512345678', '121000358');
    const updated = await stack.call('PUT', `/merchants/${p.body.data.id}`, {
      as: creds,
      body: { data: { type: 'merchants', attributes: { group: 'bankInfo', bankInfo: newBank } } },
    });
    expect(updated.status).toBe(200);
    bodies.push(updated.body, (await stack.call('GET', `/merchants/${p.body.data.id}`, { as: creds })).body);
    const text = JSON.stringify(bodies);
    for (const secret of secrets) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/accountNumber|routingNumber/);
  });
});

describe('GET /merchants', () => {
  let lister: Credentials;
  const ids: string[] = [];

  beforeAll(async () => {
    lister = await stack.createAccount('Lister');
    for (let i = 0; i < 5; i++) {
      const base = personalMerchantAttributes({ accountName: `Shop ${i}` });
      const firstName = i === 1 || i === 3 ? 'Review' : 'Jane';
      ids.push(await createMerchant(stack, lister, { ...base, personalInfo: { ...base.personalInfo, firstName } }));
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    await createBusinessMerchant(stack, other);
  });

  const page = (query: string) => stack.call('GET', `/merchants${query}`, { as: lister });

  it('lists the account’s merchants, newest first, with the list attributes', async () => {
    const res = await page('');
    expect(res.status).toBe(200);
    expect(res.body.data.map((m: { id: string }) => m.id)).toEqual([...ids].reverse());
    expect(res.body.meta).toEqual({ total: 5, limit: 25, offset: 0, hasMore: false });
    expect(res.body.links).toEqual({ self: 'http://localhost:8080/merchants', next: null });
    const [first] = res.body.data;
    expect(first).toEqual({
      type: 'merchants',
      id: ids[4],
      attributes: {
        accountName: 'Shop 4',
        accountType: 'personal',
        status: 'active',
        createdAt: expect.stringMatching(ISO_MS),
        email: expect.stringMatching(/@example\.com$/),
      },
    });
  });

  it('pages with limit and offset: next, from the last item, present until the last page', async () => {
    const first = await page('?limit=2');
    expect(first.body.data).toHaveLength(2);
    expect(first.body.meta).toEqual({ total: 5, limit: 2, offset: 0, hasMore: true });
    expect(first.body.links.self).toBe('http://localhost:8080/merchants?limit=2');
    expect(first.body.links.next).toBe(`http://localhost:8080/merchants?limit=2&startingAfter=${ids[3]}`);
    const second = await page('?limit=2&offset=2');
    expect(second.body.meta.hasMore).toBe(true);
    expect(second.body.links.next).toBe(`http://localhost:8080/merchants?limit=2&startingAfter=${ids[1]}`);
    const last = await page('?limit=2&offset=4');
    expect(last.body.data.map((m: { id: string }) => m.id)).toEqual([ids[0]]);
    expect(last.body.meta).toEqual({ total: 5, limit: 2, offset: 4, hasMore: false });
    expect(last.body.links.next).toBeNull();
    const all = [...first.body.data, ...second.body.data, ...last.body.data].map((m: { id: string }) => m.id);
    expect(all).toEqual([...ids].reverse());
  });

  it('answers an offset past the end with an empty page', async () => {
    const res = await page('?offset=50');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.meta).toEqual({ total: 5, limit: 25, offset: 50, hasMore: false });
    expect(res.body.links.next).toBeNull();
  });

  it.each(['limit=0', 'limit=101', 'limit=abc', 'limit=2.5', 'limit=-1', 'offset=-1', 'offset=1.5', 'offset=x'])(
    '400s %s naming the parameter',
    async (query) => {
      const error = expectError(await page(`?${query}`), 400, 'invalid_field');
      expect(error.source).toEqual({ parameter: query.split('=')[0] });
    },
  );

  it('filters by status', async () => {
    const pending = await page('?status=pending');
    expect(pending.body.data.map((m: { id: string }) => m.id)).toEqual([ids[3], ids[1]]);
    expect(pending.body.meta.total).toBe(2);
    expect(pending.body.data.every((m: { attributes: { status: string } }) => m.attributes.status === 'pending')).toBe(
      true,
    );
    const active = await page('?status=active&limit=1');
    expect(active.body.meta).toEqual({ total: 3, limit: 1, offset: 0, hasMore: true });
    expect(active.body.links.next).toBe(
      `http://localhost:8080/merchants?status=active&limit=1&startingAfter=${ids[4]}`,
    );
    expect((await page('?status=closed')).body.data).toEqual([]);
    const error = expectError(await page('?status=deleted'), 400, 'invalid_field');
    expect(error.source).toEqual({ parameter: 'status' });
  });
});
