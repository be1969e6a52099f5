import { addBusinessDays, pacificDate, startOfPacificDay } from '@pps/shared/clock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../fixtures/merchants';
import { achBody, newRequestId, postPayment, refundBody } from '../fixtures/payments';
import { type Credentials, createTestStack, expectError, type TestStack } from '../harness';

let stack: TestStack;
let creds: Credentials;
let merchantId: string;

beforeAll(async () => {
  stack = await createTestStack();
  creds = await stack.createAccount('Acme');
  merchantId = await createMerchant(stack, creds);
});
afterAll(() => stack?.close());

const pay = (body: unknown) => postPayment(stack, creds, body);
const counts = async () =>
  (
    await stack.sql`select (select count(*) from payments)::int as payments, (select count(*) from events)::int as events`
  )[0];

describe('POST /payments ACH', () => {
  it('accepts a debit: 201 pending, fees per pricing, settleAt 3 business days out, a masked bank', async () => {
    const res = await pay(achBody({ merchantId, amount: '2000' }));
    expect(res.status).toBe(201);
    const { data } = res.body;
    expect(data.attributes).toMatchObject({
      paymentType: 'ACH',
      merchantId,
      status: 'pending',
      transaction: {
        code: '0',
        message: 'Accepted',
        amount: '2000',
        currency: 'USD',
        invoice: 'INV-ACH-1',
        gross: '2000',
        grossMinusNet: '88',
        net: '1912',
        fee: '30',
        rate: '2.9',
      },
      bank: {
        bankName: 'First Test Bank',
        accountType: 'checking',
        accountName: 'Sam Customer',
        last4: '6789',
        routingLast4: '0021',
      },
      StandardEntryClassCode: 'WEB',
      refundableAmount: '0',
      voidableUntil: null,
    });
    expect(data.attributes.transaction.authCode).toBeUndefined();
    const createdAt = new Date(data.attributes.createdAt);
    expect(data.attributes.settleAt).toBe(startOfPacificDay(addBusinessDays(pacificDate(createdAt), 3)).toISOString());

    const text = JSON.stringify((await stack.call('GET', `/payments/${data.id}`, { as: creds })).body);
    expect(text).not.toContain('000123456789');
    expect(text).not.toContain('021000021');
    const [row] =
      await stack.sql`select bank_account_number_enc, bank_routing_number_enc, bank from payments where id = ${data.id}`;
    expect(row!.bank_account_number_enc).not.toContain('123456789');
    expect(JSON.stringify(row!.bank)).not.toContain('123456789');
    const entries =
      await stack.sql`select ledger_account, amount::int from ledger_entries where payment_id = ${data.id} order by id`;
    expect(entries).toEqual([
      { ledger_account: 'external:ach', amount: -2000 },
      { ledger_account: `merchant:${merchantId}:pending`, amount: 1912 },
      { ledger_account: 'operator:fees', amount: 88 },
    ]);
  });

  it('defaults the SEC code to WEB and takes PPD, CCD and TEL', async () => {
    const plain = achBody({ merchantId });
    delete (plain.data.attributes as Record<string, unknown>).StandardEntryClassCode;
    expect((await pay(plain)).body.data.attributes.StandardEntryClassCode).toBe('WEB');
    for (const code of ['PPD', 'CCD', 'TEL']) {
      const res = await pay(achBody({ merchantId, attributes: { StandardEntryClassCode: code } }));
      expect(res.body.data.attributes.StandardEntryClassCode).toBe(code);
    }
  });

  it('422s insufficient funds on the sandbox account 9876543 and stores the failed payment', async () => {
    const res = await pay(achBody({ merchantId, accountNumber: '9876543' }));
    expectError(res, 422, 'insufficient_funds', '/data/attributes/bank/accountNumber');
    const paymentId = res.body.meta.paymentId;
    expect(res.body.meta.transaction).toMatchObject({ code: 'R01', message: 'Insufficient funds' });
    const stored = await stack.call('GET', `/payments/${paymentId}`, { as: creds });
    expect(stored.body.data.attributes).toMatchObject({ paymentType: 'ACH', status: 'failed', settleAt: null });
    const [ledger] = await stack.sql`select count(*)::int as n from ledger_entries where payment_id = ${paymentId}`;
    expect(ledger!.n).toBe(0);
    const [event] = await stack.sql`select type from events where resource_id = ${paymentId}`;
    expect(event!.type).toBe('payment.failed');
  });

  it('400s a routing number failing the checksum or the Federal Reserve prefix, and a bad account number', async () => {
    const snapshot = await counts();
    const routing = '/data/attributes/bank/routingNumber';
    for (const routingNumber of ['021000022', '130000001', '000000000', '12345678']) {
      const body = achBody({ merchantId });
      body.data.attributes.bank = { ...(body.data.attributes.bank as object), routingNumber };
      expectError(await pay(body), 400, 'invalid_routing_number', routing);
    }
    for (const accountNumber of ['123', '123456789012345678', '12ab5678']) {
      expectError(
        await pay(achBody({ merchantId, accountNumber })),
        400,
        'invalid_field',
        '/data/attributes/bank/accountNumber',
      );
    }
    const sec = await pay(achBody({ merchantId, attributes: { StandardEntryClassCode: 'ARC' } }));
    expectError(sec, 400, 'invalid_field', '/data/attributes/StandardEntryClassCode');
    const missing = achBody({ merchantId });
    delete (missing.data.attributes.bank as Record<string, unknown>).accountName;
    expectError(await pay(missing), 400, 'missing_field', '/data/attributes/bank/accountName');
    expect(await counts()).toEqual(snapshot);
  });

  it('400s capture: false (an ACH debit cannot be authorized only), storing nothing; capture: true is a debit', async () => {
    const snapshot = await counts();
    const error = expectError(
      await pay(achBody({ merchantId, attributes: { capture: false } })),
      400,
      'invalid_field',
      '/data/attributes/capture',
    );
    expect(error.detail).toContain('cannot be authorized only');
    expect(await counts()).toEqual(snapshot);
    const debit = await pay(achBody({ merchantId, attributes: { capture: true } }));
    expect(debit.status).toBe(201);
    expect(debit.body.data.attributes.status).toBe('pending');
  });

  it('is idempotent by requestId, the refused 422 included', async () => {
    const requestId = newRequestId();
    const first = await pay(achBody({ merchantId, requestId }));
    const again = await pay(achBody({ merchantId, requestId }));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const refusedKey = newRequestId();
    const refused = await pay(achBody({ merchantId, accountNumber: '9876543', requestId: refusedKey }));
    const replay = await pay(achBody({ merchantId, accountNumber: '9876543', requestId: refusedKey }));
    expect(replay.status).toBe(422);
    expect(replay.body.meta.paymentId).toBe(refused.body.meta.paymentId);
  });

  it('is never voided and refunds only once completed', async () => {
    const id = (await pay(achBody({ merchantId, amount: '3000' }))).body.data.id;
    expectError(await pay(refundBody(id, '3000')), 422, 'ach_not_settled', '/data/attributes/parentPaymentId');
  });
});
