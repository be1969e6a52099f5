import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { businessMerchantAttributes, personalMerchantAttributes, uniqueEmail, uniqueSsn } from '../fixtures/merchants';
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';

let stack: TestStack;
let creds: Credentials;

beforeAll(async () => {
  stack = await createTestStack();
  creds = await stack.createAccount('Validation Platform');
});
afterAll(() => stack.close());

type Attributes = Record<string, unknown>;

const create = (attributes: Attributes, as = creds) =>
  stack.call('POST', '/merchants', { as, body: { data: { type: 'merchants', attributes } } });

/** A copy of `attributes` with the value at the dotted path replaced (undefined: removed). */
function withValue(attributes: Attributes, path: string, value: unknown): Attributes {
  const copy = structuredClone(attributes);
  const keys = path.split('.');
  const last = keys.pop()!;
  let target = copy;
  for (const key of keys) target = target[key] as Attributes;
  if (value === undefined) delete target[last];
  else target[last] = value;
  return copy;
}

const pointerOf = (path: string) => `/data/attributes/${path.replaceAll('.', '/')}`;

async function merchantCount(accountId: string): Promise<number> {
  const [row] = await stack.sql<{ count: number }[]>`
    select count(*)::int as count from merchants where account_id = ${accountId}`;
  return row!.count;
}

/** The date `years` years before today (UTC), `MM-DD-YYYY`, moved by `days`. */
function birthDate(years: number, days = 0): string {
  const date = new Date();
  date.setUTCFullYear(date.getUTCFullYear() - years);
  date.setUTCDate(date.getUTCDate() + days);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}-${date.getUTCFullYear()}`;
}

describe('required fields', () => {
  const personalRequired = [
    'accountType',
    'accountName',
    'personalInfo',
    'personalInfo.firstName',
    'personalInfo.lastName',
    'personalInfo.email',
    'personalInfo.dayPhone',
    'personalInfo.birthDate',
    'personalInfo.socialSecurity',
    'personalAddress',
    'personalAddress.line1',
    'personalAddress.city',
    'personalAddress.state',
    'personalAddress.zip',
    'personalAddress.country',
    'bankInfo',
    'bankInfo.bankName',
    'bankInfo.accountOwnership',
    'bankInfo.accountType',
    'bankInfo.accountName',
    'bankInfo.accountNumber',
    'bankInfo.routingNumber',
    'verificationData',
    'verificationData.ipAddress',
    'verificationData.emailVerified',
    'verificationData.signature',
    'verificationData.signatureTimestamp',
    'verificationData.termsAccepted',
  ];

  it.each(personalRequired)('personal: 400 missing_field without %s', async (path) => {
    const res = await create(withValue(personalMerchantAttributes(), path, undefined));
    const error = expectError(res, 400, 'missing_field', pointerOf(path));
    expect(error.title).toBe('Bad Request');
  });

  const businessRequired = [
    'businessInfo',
    'businessInfo.businessName',
    'businessInfo.ein',
    'businessAddress',
    'businessAddress.line1',
    'businessAddress.city',
    'businessAddress.state',
    'businessAddress.zip',
    'businessAddress.country',
    'personalInfo.socialSecurity',
    'bankInfo.routingNumber',
  ];

  it.each(businessRequired)('business: 400 missing_field without %s', async (path) => {
    expectError(
      await create(withValue(businessMerchantAttributes(), path, undefined)),
      400,
      'missing_field',
      pointerOf(path),
    );
  });

  it('does not ask a personal merchant for business fields', async () => {
    const res = await create(personalMerchantAttributes());
    expect(res.status).toBe(201);
  });
});

describe('invalid fields', () => {
  const cases: [string, unknown, string][] = [
    ['accountType', 'corporate', 'invalid_field'],
    ['accountName', '   ', 'invalid_field'],
    ['accountName', 42, 'invalid_field'],
    ['AVS', 'Moderate', 'invalid_field'],
    ['fraudScreenPolicy', 'Paranoid', 'invalid_field'],
    ['miscData', { not: 'a string' }, 'invalid_field'],
    ['personalInfo.firstName', '', 'invalid_field'],
    ['personalInfo.email', 'jane.example.com', 'invalid_field'],
    ['personalInfo.email', 'jane@localhost', 'invalid_field'],
    ['personalInfo.dayPhone', '555-0100', 'invalid_field'],
    ['personalInfo.dayPhone', '41555501000', 'invalid_field'],
    ['personalInfo.eveningPhone', 'call me', 'invalid_field'],
    ['personalInfo.birthDate', '1985-04-12', 'invalid_field'],
    ['personalInfo.birthDate', '04/12/1985', 'invalid_field'],
    ['personalInfo.birthDate', '02-30-1985', 'invalid_field'],
    ['personalInfo.birthDate', '13-01-1985', 'invalid_field'],
    ['personalInfo.socialSecurity', '12345678', 'invalid_tax_id'],
    ['personalInfo.socialSecurity', '1234567890', 'invalid_tax_id'],
    ['personalInfo.socialSecurity', '000123456', 'invalid_tax_id'],
    ['personalInfo.socialSecurity', '666123456', 'invalid_tax_id'],
    ['personalInfo.socialSecurity', '900123456', 'invalid_tax_id'],
    ['personalInfo.socialSecurity', '123006789', 'invalid_tax_id'],
    ['personalInfo.socialSecurity', '123450000', 'invalid_tax_id'],
    ['personalInfo.socialSecurity', 123456789, 'invalid_field'],
    ['personalAddress.state', 'XX', 'invalid_field'],
    ['personalAddress.state', 'California', 'invalid_field'],
    ['personalAddress.zip', '9410', 'invalid_field'],
    ['personalAddress.zip', '94105-12', 'invalid_field'],
    ['personalAddress.country', 'CAN', 'invalid_field'],
    ['bankInfo.accountOwnership', 'joint', 'invalid_field'],
    ['bankInfo.accountType', 'brokerage', 'invalid_field'],
    ['bankInfo.accountNumber', '123', 'invalid_field'],
    ['bankInfo.accountNumber', '123456789012345678', 'invalid_field'],
    ['bankInfo.accountNumber', '1234-5678', 'invalid_field'],
    ['bankInfo.routingNumber', '02100002', 'invalid_routing_number'],
    ['bankInfo.routingNumber', '021000022', 'invalid_routing_number'],
    ['bankInfo.routingNumber', '000000000', 'invalid_routing_number'],
    ['bankInfo.routingNumber', '130000006', 'invalid_routing_number'],
    ['bankInfo.routingNumber', 'O21000021', 'invalid_routing_number'],
    ['verificationData.ipAddress', '300.1.1.1', 'invalid_field'],
    ['verificationData.emailVerified', 'yes', 'invalid_field'],
    ['verificationData.signatureTimestamp', 'yesterday', 'invalid_field'],
    ['verificationData.emailVerifiedTimestamp', '2026-11-01', 'invalid_field'],
    ['verificationData.termsAccepted', false, 'invalid_field'],
  ];

  it.each(cases)('400s %s = %j with %s and its pointer', async (path, value, code) => {
    const before = await merchantCount(creds.accountId);
    const res = await create(withValue(personalMerchantAttributes(), path, value));
    const error = expectError(res, 400, code, pointerOf(path));
    expect(error.detail).toMatch(new RegExp(`^${path.split('.').pop()}`));
    expect(res.body.errors).toHaveLength(1);
    expect(await merchantCount(creds.accountId)).toBe(before);
  });

  const businessCases: [string, unknown, string][] = [
    ['businessInfo.ein', '12345678', 'invalid_tax_id'],
    ['businessInfo.ein', '00-1234567', 'invalid_tax_id'],
    ['businessInfo.ein', '07-1234567', 'invalid_tax_id'],
    ['businessInfo.ein', '123-456789', 'invalid_tax_id'],
    ['businessInfo.email', 'billing@', 'invalid_field'],
    ['businessInfo.url', 'acme.example.com', 'invalid_field'],
    ['businessInfo.phone', '12345', 'invalid_field'],
    ['businessAddress.state', 'ZZ', 'invalid_field'],
    ['businessAddress.zip', 'ABCDE', 'invalid_field'],
  ];

  it.each(businessCases)('business: 400s %s = %j with %s', async (path, value, code) => {
    expectError(await create(withValue(businessMerchantAttributes(), path, value)), 400, code, pointerOf(path));
  });

  it('takes an EIN with or without its dash', async () => {
    for (const ein of ['46-1234567', '461234568']) {
      const res = await create(withValue(businessMerchantAttributes(), 'businessInfo.ein', ein));
      expect(res.status).toBe(201);
    }
  });

  it('400s a wrong data.type and a body without data', async () => {
    const wrongType = await stack.call('POST', '/merchants', {
      as: creds,
      body: { data: { type: 'payments', attributes: personalMerchantAttributes() } },
    });
    expectError(wrongType, 400, 'invalid_field', '/data/type');
    expectError(await stack.call('POST', '/merchants', { as: creds, body: {} }), 400, 'missing_field', '/data');
    expectError(
      await stack.call('POST', '/merchants', { as: creds, body: { data: { type: 'merchants', attributes: 'x' } } }),
      400,
      'invalid_field',
      '/data/attributes',
    );
  });

  it('400s malformed JSON and 415s a body that is not JSON', async () => {
    const malformed = await stack.call('POST', '/merchants', {
      as: creds,
      raw: '{"data":',
      headers: { 'content-type': 'application/json' },
    });
    expectError(malformed, 400, 'malformed_json');
    const text = await stack.call('POST', '/merchants', {
      as: creds,
      raw: 'hello',
      headers: { 'content-type': 'text/plain' },
    });
    expectError(text, 415, 'unsupported_media_type');
  });
});

describe('age', () => {
  it('refuses an owner under 18 and accepts one who is 18 today', async () => {
    const minor = await create(withValue(personalMerchantAttributes(), 'personalInfo.birthDate', birthDate(18, 2)));
    const error = expectError(minor, 400, 'invalid_field', pointerOf('personalInfo.birthDate'));
    expect(error.detail).toMatch(/at least 18/);
    const adult = await create(withValue(personalMerchantAttributes(), 'personalInfo.birthDate', birthDate(18, -2)));
    expect(adult.status).toBe(201);
    const future = await create(withValue(personalMerchantAttributes(), 'personalInfo.birthDate', birthDate(-1)));
    expectError(future, 400, 'invalid_field', pointerOf('personalInfo.birthDate'));
  });

  it("measures age on the account's sandbox clock", async () => {
    const clocked = await stack.createAccount('Clocked');
    const attributes = withValue(personalMerchantAttributes(), 'personalInfo.birthDate', birthDate(18, 3));
    expectError(await create(attributes, clocked), 400, 'invalid_field', pointerOf('personalInfo.birthDate'));
    const moved = await stack.call('POST', '/sandbox/clock', {
      as: clocked,
      body: { data: { type: 'clock', attributes: { advanceSeconds: 5 * 86_400 } } },
    });
    expect(moved.status).toBe(200);
    expect((await create(attributes, clocked)).status).toBe(201);
  });
});

describe('several invalid fields', () => {
  it('reports every invalid field at once, each with its pointer', async () => {
    let attributes: Attributes = businessMerchantAttributes();
    attributes = withValue(attributes, 'personalInfo.socialSecurity', '000000000');
    attributes = withValue(attributes, 'personalInfo.email', 'nope');
    attributes = withValue(attributes, 'personalInfo.birthDate', birthDate(10));
    attributes = withValue(attributes, 'personalAddress.zip', '1');
    attributes = withValue(attributes, 'personalAddress.state', 'QQ');
    attributes = withValue(attributes, 'bankInfo.routingNumber', '123456789');
    attributes = withValue(attributes, 'bankInfo.accountType', 'gold');
    attributes = withValue(attributes, 'bankInfo.bankName', undefined);
    attributes = withValue(attributes, 'verificationData.termsAccepted', false);
    attributes = withValue(attributes, 'businessAddress', undefined);
    attributes = withValue(attributes, 'businessInfo.ein', '1');
    attributes = withValue(attributes, 'AVS', 'Loose');
    const res = await create(attributes);
    const expected: [string, string][] = [
      ['invalid_tax_id', 'personalInfo.socialSecurity'],
      ['invalid_field', 'personalInfo.email'],
      ['invalid_field', 'personalInfo.birthDate'],
      ['invalid_field', 'personalAddress.zip'],
      ['invalid_field', 'personalAddress.state'],
      ['invalid_routing_number', 'bankInfo.routingNumber'],
      ['invalid_field', 'bankInfo.accountType'],
      ['missing_field', 'bankInfo.bankName'],
      ['invalid_field', 'verificationData.termsAccepted'],
      ['missing_field', 'businessAddress'],
      ['invalid_tax_id', 'businessInfo.ein'],
      ['invalid_field', 'AVS'],
    ];
    for (const [code, path] of expected) expectError(res, 400, code, pointerOf(path));
    expect(res.body.errors).toHaveLength(expected.length);
  });
});

describe('duplicates', () => {
  it('409s a reused email, pointing at it (case-insensitively)', async () => {
    const first = personalMerchantAttributes();
    expect((await create(first)).status).toBe(201);
    const again = withValue(personalMerchantAttributes(), 'personalInfo.email', first.personalInfo.email.toUpperCase());
    const error = expectError(await create(again), 409, 'duplicate_merchant', pointerOf('personalInfo.email'));
    expect(error.title).toBe('Conflict');
  });

  it('409s a reused SSN of a personal merchant, pointing at it', async () => {
    const first = personalMerchantAttributes();
    expect((await create(first)).status).toBe(201);
    const again = withValue(
      personalMerchantAttributes(),
      'personalInfo.socialSecurity',
      first.personalInfo.socialSecurity,
    );
    const res = await create(again);
    expectError(res, 409, 'duplicate_merchant', pointerOf('personalInfo.socialSecurity'));
    expect(res.body.errors).toHaveLength(1);
  });

  it('409s a reused EIN of a business merchant (dash or not), pointing at it', async () => {
    const first = businessMerchantAttributes();
    expect((await create(first)).status).toBe(201);
    const ein = first.businessInfo.ein;
    const again = withValue(businessMerchantAttributes(), 'businessInfo.ein', `${ein.slice(0, 2)}-${ein.slice(2)}`);
    expectError(await create(again), 409, 'duplicate_merchant', pointerOf('businessInfo.ein'));
  });

  it('lets one owner (SSN) run several businesses', async () => {
    const first = businessMerchantAttributes();
    expect((await create(first)).status).toBe(201);
    const second = withValue(
      businessMerchantAttributes(),
      'personalInfo.socialSecurity',
      first.personalInfo.socialSecurity,
    );
    expect((await create(second)).status).toBe(201);
  });

  it('reports both fields when email and tax id are both taken', async () => {
    const first = personalMerchantAttributes();
    expect((await create(first)).status).toBe(201);
    const res = await create(personalMerchantAttributes({ personalInfo: first.personalInfo }));
    expectError(res, 409, 'duplicate_merchant', pointerOf('personalInfo.email'));
    expectError(res, 409, 'duplicate_merchant', pointerOf('personalInfo.socialSecurity'));
  });

  it('lets another account reuse the same email and SSN', async () => {
    const first = personalMerchantAttributes();
    expect((await create(first)).status).toBe(201);
    const otherAccount = await stack.createAccount('Other');
    expect((await create(first, otherAccount)).status).toBe(201);
  });

  it('turns concurrent duplicates into one merchant and 409s (unique index)', async () => {
    const racer = await stack.createAccount('Racer');
    const email = uniqueEmail('race');
    const bodies = Array.from({ length: 4 }, () =>
      personalMerchantAttributes({
        personalInfo: { ...personalMerchantAttributes().personalInfo, email, socialSecurity: uniqueSsn() },
      }),
    );
    const results = await Promise.all(bodies.map((body) => create(body, racer)));
    expect(results.filter((res) => res.status === 201)).toHaveLength(1);
    for (const res of results.filter((r) => r.status !== 201)) {
      expectError(res, 409, 'duplicate_merchant', pointerOf('personalInfo.email'));
    }
    expect(await merchantCount(racer.accountId)).toBe(1);
  });
});

describe('bad input changes nothing', () => {
  it('leaves no merchant, bank account or event after a 400 or a 409', async () => {
    const fresh = await stack.createAccount('Fresh');
    const invalid = withValue(personalMerchantAttributes(), 'bankInfo.routingNumber', '021000022');
    expect((await create(invalid, fresh)).status).toBe(400);
    const underage = withValue(personalMerchantAttributes(), 'personalInfo.birthDate', birthDate(17));
    expect((await create(underage, fresh)).status).toBe(400);
    expect(await merchantCount(fresh.accountId)).toBe(0);
    const first = personalMerchantAttributes();
    expect((await create(first, fresh)).status).toBe(201);
    expect((await create(first, fresh)).status).toBe(409);
    expect(await merchantCount(fresh.accountId)).toBe(1);
    const [counts] = await stack.sql<{ banks: number; events: number }[]>`
      select (select count(*)::int from merchant_bank_accounts b join merchants m on m.id = b.merchant_id
               where m.account_id = ${fresh.accountId}) as banks,
             (select count(*)::int from events where account_id = ${fresh.accountId}) as events`;
    expect(counts).toEqual({ banks: 1, events: 1 });
  });
});
