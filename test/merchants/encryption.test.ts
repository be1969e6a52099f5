import { createMerchantSecrets, currentBankAccount, revealBankAccount } from '@pps/merchants';
import { createMerchantsApp } from '@pps/merchants/app';
import { testConfig } from '@pps/shared/config';
import { FieldCipher } from '@pps/shared/crypto';
import { signInternal } from '@pps/shared/http';
import { createLogger } from '@pps/shared/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { businessMerchantAttributes, personalMerchantAttributes } from '../fixtures/merchants';
import { type Credentials, createTestStack, type TestStack } from '../harness';

const key = (byte: number) => Buffer.alloc(32, byte).toString('base64');
const K1 = `k1:${key(1)}`;
const K2 = `k2:${key(2)}`;

let stack: TestStack;
let creds: Credentials;

beforeAll(async () => {
  stack = await createTestStack({ env: { DATA_ENCRYPTION_KEYS: K1 } });
  creds = await stack.createAccount('Encryption Platform');
});
afterAll(() => stack.close());

const rowText = async (merchantId: string) => {
  const [merchant] = await stack.sql<{ json: string }[]>`
    select row_to_json(m)::text as json from merchants m where id = ${merchantId}`;
  const banks = await stack.sql<{ json: string }[]>`
    select row_to_json(b)::text as json from merchant_bank_accounts b where merchant_id = ${merchantId}`;
  return [merchant!.json, ...banks.map((bank) => bank.json)].join('\n');
};

/** Every way a sensitive value of the fixture could appear in clear. */
function plaintextsOf(attributes: ReturnType<typeof businessMerchantAttributes>): string[] {
  const ssn = attributes.personalInfo.socialSecurity;
  const ein = attributes.businessInfo.ein;
  return [
    ssn,
    `${ssn.slice(0, 3)}-${ssn.slice(3, 5)}-${ssn.slice(5)}`,
    ein,
    `${ein.slice(0, 2)}-${ein.slice(2)}`,
    attributes.personalInfo.birthDate,
    attributes.personalInfo.birthDate.replaceAll('-', ''),
    attributes.bankInfo.accountNumber,
    attributes.bankInfo.routingNumber,
  ];
}

/** A call straight to a merchants app, signed as the gateway would sign it for `accountId`. */
function callApp(app: ReturnType<typeof createMerchantsApp>, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = signInternal(
    stack.config.INTERNAL_SECRET,
    { accountId: creds.accountId, appId: creds.appId, clockOffsetSeconds: 0, requestId: 'req_rotation' },
    method,
    path,
  );
  if (body !== undefined) headers['content-type'] = 'application/json';
  return app.request(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

describe('encryption at rest', () => {
  it('stores no plaintext SSN, EIN, birth date, account or routing number', async () => {
    const attributes = businessMerchantAttributes();
    const res = await stack.call('POST', '/merchants', {
      as: creds,
      body: { data: { type: 'merchants', attributes } },
    });
    expect(res.status).toBe(201);
    const id = res.body.data.id;
    const text = await rowText(id);
    for (const plaintext of plaintextsOf(attributes)) expect(text).not.toContain(plaintext);

    const [row] = await stack.sql<{ ssn_enc: string; ein_enc: string; birth_date_enc: string }[]>`
      select ssn_enc, ein_enc, birth_date_enc from merchants where id = ${id}`;
    const cipher = new FieldCipher([{ id: 'k1', secret: Buffer.from(key(1), 'base64') }]);
    expect(FieldCipher.keyIdOf(row!.ssn_enc)).toBe('k1');
    expect(cipher.decrypt(row!.ssn_enc)).toBe(attributes.personalInfo.socialSecurity);
    expect(cipher.decrypt(row!.ein_enc)).toBe(attributes.businessInfo.ein);
    expect(cipher.decrypt(row!.birth_date_enc)).toBe(attributes.personalInfo.birthDate);
    const bank = await currentBankAccount(stack.db, id);
    expect(revealBankAccount(cipher, bank!)).toEqual({ accountNumber: '000987654321', routingNumber: '011000015' });
  });

  it('stores digits only for a dashed SSN and EIN, still encrypted', async () => {
    const attributes = businessMerchantAttributes();
    const ein = attributes.businessInfo.ein;
    const ssn = attributes.personalInfo.socialSecurity;
    const dashed = {
      ...attributes,
      personalInfo: {
        ...attributes.personalInfo,
        socialSecurity: `${ssn.slice(0, 3)}-${ssn.slice(3, 5)}-${ssn.slice(5)}`,
      },
      businessInfo: { ...attributes.businessInfo, ein: `${ein.slice(0, 2)}-${ein.slice(2)}` },
    };
    const res = await stack.call('POST', '/merchants', {
      as: creds,
      body: { data: { type: 'merchants', attributes: dashed } },
    });
    expect(res.status).toBe(201);
    const text = await rowText(res.body.data.id);
    for (const plaintext of plaintextsOf(attributes)) expect(text).not.toContain(plaintext);
  });
});

describe('key rotation', () => {
  it('reads records of the old key after a new key becomes active, and writes new ones under the new key', async () => {
    const oldAttributes = personalMerchantAttributes();
    const created = await stack.call('POST', '/merchants', {
      as: creds,
      body: { data: { type: 'merchants', attributes: oldAttributes } },
    });
    expect(created.status).toBe(201);
    const oldId = created.body.data.id;

    const rotated = testConfig({
      DATABASE_URL: stack.config.DATABASE_URL,
      INTERNAL_SECRET: stack.config.INTERNAL_SECRET,
      DATA_ENCRYPTION_KEYS: `${K2},${K1}`,
    });
    const app = createMerchantsApp({ config: rotated, db: stack.db, log: createLogger({ level: 'silent' }) });
    const secrets = createMerchantSecrets(rotated);

    const read = await callApp(app, 'GET', `/merchants/${oldId}`);
    expect(read.status).toBe(200);
    expect((await read.json()).data).toEqual(created.body.data);
    const oldBank = await currentBankAccount(stack.db, oldId);
    expect(FieldCipher.keyIdOf(oldBank!.accountNumberEnc)).toBe('k1');
    expect(revealBankAccount(secrets.cipher, oldBank!)).toEqual({
      accountNumber: oldAttributes.bankInfo.accountNumber,
      routingNumber: oldAttributes.bankInfo.routingNumber,
    });

    const fresh = personalMerchantAttributes();
    const made = await callApp(app, 'POST', '/merchants', { data: { type: 'merchants', attributes: fresh } });
    expect(made.status).toBe(201);
    const newId = (await made.json()).data.id;
    const [row] = await stack.sql<{ ssn_enc: string; birth_date_enc: string }[]>`
      select ssn_enc, birth_date_enc from merchants where id = ${newId}`;
    expect(FieldCipher.keyIdOf(row!.ssn_enc)).toBe('k2');
    expect(FieldCipher.keyIdOf(row!.birth_date_enc)).toBe('k2');
    expect(secrets.cipher.decrypt(row!.ssn_enc)).toBe(fresh.personalInfo.socialSecurity);
    expect(FieldCipher.keyIdOf((await currentBankAccount(stack.db, newId))!.routingNumberEnc)).toBe('k2');

    // A bank update of the old merchant writes its new version under k2; the old version stays readable.
    const bankInfo = { ...oldAttributes.bankInfo, accountNumber: '246813579' };
    const updated = await callApp(app, 'PUT', `/merchants/${oldId}/bankInfo`, {
      data: { type: 'merchants', attributes: { bankInfo } },
    });
    expect(updated.status).toBe(200);
    const current = await currentBankAccount(stack.db, oldId);
    expect(FieldCipher.keyIdOf(current!.accountNumberEnc)).toBe('k2');
    expect(revealBankAccount(secrets.cipher, current!).accountNumber).toBe('246813579');

    // Duplicates are still found: the blind index does not depend on the encryption key.
    const another = personalMerchantAttributes();
    const duplicate = await callApp(app, 'POST', '/merchants', {
      data: {
        type: 'merchants',
        attributes: { ...another, personalInfo: { ...another.personalInfo, email: oldAttributes.personalInfo.email } },
      },
    });
    expect(duplicate.status).toBe(409);
    expect(
      (await duplicate.json()).errors.map((error: { source: { pointer: string } }) => error.source.pointer),
    ).toEqual(['/data/attributes/personalInfo/email']);

    // Without k1 in the ring the old values can't be read: the key id really selects the key.
    const k2Only = createMerchantSecrets(testConfig({ DATA_ENCRYPTION_KEYS: K2 }));
    expect(() => revealBankAccount(k2Only.cipher, oldBank!)).toThrow(/k1/);
  });
});

describe('logs', () => {
  it('never carry a sensitive value', async () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'trace', destination: { write: (line: string) => lines.push(line) } as never });
    const app = createMerchantsApp({ config: stack.config, db: stack.db, log });
    const attributes = businessMerchantAttributes();
    const res = await callApp(app, 'POST', '/merchants', { data: { type: 'merchants', attributes } });
    expect(res.status).toBe(201);
    const bad = await callApp(app, 'POST', '/merchants', { data: { type: 'merchants', attributes } });
    expect(bad.status).toBe(409);
    expect(lines.join('\n')).toContain('merchant created');
    for (const plaintext of plaintextsOf(attributes)) expect(lines.join('\n')).not.toContain(plaintext);
  });
});
