import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answerHoldsNothingToRedact, redactBody, redactJson, redactText } from './redact';

/** A card number of `length` digits starting with `prefix`, its last digit making the Luhn check pass. */
function luhnCard(prefix: string, body: string, length: number): string {
  const partial = (prefix + body).slice(0, length - 1).padEnd(length - 1, '0');
  for (let check = 0; check <= 9; check++) {
    const candidate = `${partial}${check}`;
    let sum = 0;
    for (let i = 0; i < candidate.length; i++) {
      let digit = Number(candidate[candidate.length - 1 - i]);
      if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
      sum += digit;
    }
    if (sum % 10 === 0) return candidate;
  }
  throw new Error('unreachable');
}

const digits = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });
const base64url = fc.string({
  unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'),
  minLength: 43,
  maxLength: 43,
});

/** Secrets that have a shape: found whatever field they are sent in. */
const shapedSecret = fc.oneof(
  fc
    .tuple(
      fc.constantFrom(['4', 16], ['4', 19], ['51', 16], ['2221', 16], ['34', 15], ['37', 15], ['6011', 16], ['65', 16]),
      digits(20, 20),
    )
    .map(([[prefix, length], body]) => luhnCard(prefix as string, body, length as number)),
  digits(9, 9), // SSN, EIN or routing number without dashes
  digits(9, 9).map((d) => `${d.slice(0, 3)}-${d.slice(3, 5)}-${d.slice(5)}`), // SSN
  digits(9, 9).map((d) => `${d.slice(0, 2)}-${d.slice(2)}`), // EIN
  digits(9, 17), // a bank account number of 9 digits or more
  base64url.map((text) => `sk_test_${text}`),
  base64url.map((text) => `ak_${text}`),
  base64url.map((text) => `cs_secret_${text}`),
  fc.base64String({ minLength: 44, maxLength: 44 }).map((text) => `whsec_${text}`),
  fc.tuple(base64url, base64url, base64url).map(([a, b, c]) => `eyJ${a}.${b}.${c}`),
);

describe('redactText', () => {
  it('finds a shaped secret inside any text, and leaves the text around it', () => {
    fc.assert(
      fc.property(
        shapedSecret,
        fc.constantFrom('', 'see ', 'card: ', '(', 'INV 1001 ', '12-'),
        fc.constantFrom('', ' thanks', ')', ' 2026'),
        (secret, before, after) => {
          const redacted = redactText(`${before}${secret}${after}`);
          expect(redacted).not.toContain(secret);
          // Next to other digits a stretch around the secret may go with it; beside words, only the secret.
          if (!/\d/.test(before + after)) expect(redacted).toBe(`${before}[redacted]${after}`);
        },
      ),
    );
  });

  it('finds card numbers written in groups', () => {
    expect(redactText('4242 4242 4242 4242')).toBe('[redacted]');
    expect(redactText('pay with 3782-822463-10005 please')).toBe('pay with [redacted] please');
    // Among other numbers, grouped or not.
    expect(redactText('INV 100101000 4000 0000 0000 0002')).toBe('INV [redacted] [redacted]');
    expect(redactText('order 12 4242424242424242 x')).toBe('order 12 [redacted] x');
    expect(redactText('1999 4111 1111 1111 1111', 'amount')).toBe('1999 [redacted]');
  });

  it('leaves ids, UUIDs, timestamps, amounts and short numbers as they are', () => {
    for (const text of [
      'pay_01m84s8mm38qmqyjbn5pttva5z',
      'req_01m84s8mm3w2c5y7q0e9hn4k1d',
      '3f0c2a52-5a4e-4b8f-9a35-2d6a1f0e8c11',
      '2026-11-23T18:04:05.123Z',
      'INV-1001',
      '1999',
      '12345678',
      '415-555-0100',
    ]) {
      expect(redactText(text)).toBe(text);
    }
  });

  it('spares the long digit runs of a figure (cents), not a card number in it', () => {
    expect(redactText('123456789012', 'amount')).toBe('123456789012');
    expect(redactText('4111111111111111', 'amount')).toBe('[redacted]');
    expect(redactText('123456789012')).toBe('[redacted]');
  });
});

describe('redactJson', () => {
  it('redacts by field name at any depth, whatever the value', () => {
    const body = {
      data: {
        attributes: {
          card: { holder: 'Jane', number: '4111111111111111', code: '123', expiry: '1230' },
          bankInfo: { accountNumber: '1234', routingNumber: '021000021', bankName: 'First' },
          personalInfo: { socialSecurity: '123456789', firstName: 'Jane' },
          businessInfo: { ein: '12-3456789' },
          nested: [{ deeper: { apiKey: { any: 'thing' }, password: 'hunter2', clientSecret: 'x', cvv: '999' } }],
          transaction: { code: '00', amount: '1000' },
        },
      },
    };
    expect(redactJson(body)).toEqual({
      data: {
        attributes: {
          card: { holder: 'Jane', number: '[redacted]', code: '[redacted]', expiry: '1230' },
          bankInfo: { accountNumber: '[redacted]', routingNumber: '[redacted]', bankName: 'First' },
          personalInfo: { socialSecurity: '[redacted]', firstName: 'Jane' },
          businessInfo: { ein: '[redacted]' },
          nested: [
            { deeper: { apiKey: '[redacted]', password: '[redacted]', clientSecret: '[redacted]', cvv: '[redacted]' } },
          ],
          // `code` outside a card is a transaction code, not a security code.
          transaction: { code: '00', amount: '1000' },
        },
      },
    });
  });

  it('redacts numbers and keys by shape, and amounts stay', () => {
    expect(
      // As a body arrives: a number past 2^53 has lost its last digits, not its first ones.
      redactJson(
        JSON.parse(
          '{"miscData": 4242424242424242, "big": 123456789012, "huge": 4000056655665556123, "amount": 123456789, ' +
            '"count": 12, "4111111111111111": "key"}',
        ),
      ),
    ).toEqual({
      miscData: '[redacted]',
      big: '[redacted]',
      huge: '[redacted]',
      amount: 123456789,
      count: 12,
      '[redacted]': 'key',
    });
  });

  it('never leaves a shaped secret anywhere in a document, whatever its field', () => {
    const field = fc.constantFrom('miscData', 'invoice', 'description', 'label', 'note', 'x');
    const document = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        shapedSecret,
        fc.string(),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(field, tie('value'), { maxKeys: 3 }),
      ),
    })).value;
    fc.assert(
      fc.property(document, shapedSecret, field, (doc, secret, name) => {
        const body = { data: { attributes: { [name]: `ref ${secret}`, doc } } };
        expect(JSON.stringify(redactJson(structuredClone(body)))).not.toContain(secret);
      }),
    );
  });
});

describe('redactBody', () => {
  const payment = JSON.stringify({
    data: {
      id: 'pay_01m84s8mm38qmqyjbn5pttva5z',
      attributes: {
        transaction: { code: '00', amount: '1000' },
        card: { brand: 'visa', last4: '1111', expiry: '1228' },
        createdAt: '2026-11-23T18:04:05.123Z',
      },
    },
  });

  it('keeps an answer with nothing to redact as the platform wrote it', () => {
    expect(redactBody(payment, { ours: true })?.text).toBe(payment);
  });

  it('redacts an answer with a secret by name, by shape, in a card, or spelt with escapes', () => {
    const cases: [unknown, string][] = [
      [{ data: { attributes: { appKey: 'short' } } }, '{"data":{"attributes":{"appKey":"[redacted]"}}}'],
      [{ data: { id: 'sk_test_abcdefghijklmnopqrstuvwxyz' } }, '{"data":{"id":"[redacted]"}}'],
      [{ card: { brand: 'visa', number: '1234' } }, '{"card":{"brand":"visa","number":"[redacted]"}}'],
      [{ card: { extra: { code: '1' } } }, '{"card":{"extra":{"code":"1"}}}'],
    ];
    for (const [value, redacted] of cases)
      expect(redactBody(JSON.stringify(value), { ours: true })?.text).toBe(redacted);
    // 4242… written with escapes.
    const escaped = '{"note":"\\u00342424242424242424"}';
    expect(redactBody(escaped, { ours: true })?.text).toBe('{"note":"[redacted]"}');
  });

  it("serializes a client's body again: a key sent twice keeps only its last value, redacted", () => {
    const twice = '{"miscData":"4111111111111111","miscData":"x"}';
    expect(redactBody(twice, { ours: false })?.text).toBe('{"miscData":"x"}');
    expect(redactBody('not json', { ours: false })).toBeUndefined();
  });
});

describe('answerHoldsNothingToRedact', () => {
  const payment = JSON.stringify({
    links: { self: 'http://localhost:3000/payments/pay_01m8m2jmwr5tzzp4ckhag6gzvg' },
    data: {
      type: 'payments',
      id: 'pay_01m8m2jmwr5tzzp4ckhag6gzvg',
      attributes: {
        merchantId: 'mer_01m8m2jmvhdnwx4wg06wbet2sp',
        status: 'pending',
        createdAt: '2026-11-29T16:35:26.744Z',
        transaction: { code: '0', message: 'Approved', amount: '1999', currency: 'USD', invoice: 'BENCH' },
        card: { brand: 'visa', last4: '1111', expiry: '1239', holder: 'Bench Buyer' },
        refunds: [],
        miscData: null,
      },
    },
  });

  it("lets a payment's answer through without a parse: nothing in it is a secret", () => {
    expect(answerHoldsNothingToRedact(payment)).toBe(true);
  });

  it('leaves to the walk a secret name, a card with a number or code, an escape, a deep or non-JSON text', () => {
    for (const text of [
      '{"data":{"appKey":"short"}}',
      '{"Token":"x"}',
      '{"card":{"brand":"visa","number":"1234"}}',
      '{"CARD":[{"Code":"1"}]}',
      '{"note":"\\u00342424242424242424"}',
      '{"name":"Zoë"}',
      '{"miscData":1e+21}',
      `${'['.repeat(64)}${']'.repeat(64)}`,
      'id,status\npay_1,pending',
      '"just a string"',
    ]) {
      expect(answerHoldsNothingToRedact(text), text).toBe(false);
    }
    // A card's `code` further down belongs to another object; a `code` after the card's close is a transaction's.
    expect(answerHoldsNothingToRedact('{"card":{"extra":{"code":"1"}}}')).toBe(false);
    expect(answerHoldsNothingToRedact('{"card":{"brand":"visa"},"transaction":{"code":"0"}}')).toBe(true);
    expect(answerHoldsNothingToRedact('{"card":{"holder":"a \\"}\\" b"},"code":"0"}')).toBe(true);
  });

  it('never lets through an answer the walk would change', () => {
    const name = fc.constantFrom(
      'miscData',
      'note',
      'card',
      'Card',
      'number',
      'code',
      'token',
      'apiKey',
      'CVV',
      'x-api-key',
      'amount',
      'ſ',
      '4111111111111111',
    );
    const leaf = fc.oneof(
      shapedSecret,
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.constantFrom(4242424242424242, 1e21, 123456789, null, true),
    );
    const document = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(name, tie('value'), { maxKeys: 4 }),
      ),
    })).value;
    fc.assert(
      fc.property(document, (value) => {
        const text = JSON.stringify({ data: value });
        if (!answerHoldsNothingToRedact(text)) return;
        expect(JSON.stringify(redactJson(JSON.parse(text)))).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });
});
