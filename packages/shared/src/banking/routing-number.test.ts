import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { abaChecksumValid, accountNumberProblem, routingNumberProblem } from './routing-number';

const code = (value: string) => routingNumberProblem(value)?.code ?? 'ok';

describe('routing numbers', () => {
  it.each(['021000021', '011000015', '121000358', '322271627', '011401533', '800000006'])('accepts %s', (value) => {
    expect(routingNumberProblem(value)).toBeUndefined();
  });

  it('refuses a wrong length, non-digits and all zeros', () => {
    for (const value of ['02100002', '0210000211', '02100002a', '021-000-021', '', '000000000']) {
      expect(code(value)).toBe('invalid_routing_number');
    }
    expect(routingNumberProblem('000000000')?.message).toMatch(/zeros/);
  });

  it('refuses a failing checksum', () => {
    expect(routingNumberProblem('021000022')?.message).toMatch(/checksum/);
    expect(routingNumberProblem('123456789')?.message).toMatch(/checksum/);
  });

  it('refuses prefixes outside 00–12, 21–32, 61–72 and 80 even with a good checksum', () => {
    // 13xxxxxxx with a valid checksum: 3(1+0+0)+7(3+0+0)+(0+0+d9) = 24 + d9 → d9 = 6
    expect(abaChecksumValid('130000006')).toBe(true);
    expect(routingNumberProblem('130000006')?.message).toMatch(/Federal Reserve prefix/);
    expect(routingNumberProblem('900000002')?.message).toMatch(/Federal Reserve prefix/);
  });

  it('accepts exactly the checksum-valid numbers of a valid prefix (property)', () => {
    const prefixes = [0, 5, 12, 21, 32, 61, 72, 80];
    fc.assert(
      fc.property(fc.constantFrom(...prefixes), fc.integer({ min: 0, max: 9_999_999 }), (prefix, rest) => {
        const first8 = `${String(prefix).padStart(2, '0')}${String(rest).padStart(7, '0')}`.slice(0, 8);
        const d = [...first8].map(Number);
        const partial = 3 * (d[0]! + d[3]! + d[6]!) + 7 * (d[1]! + d[4]! + d[7]!) + d[2]! + d[5]!;
        const check = (10 - (partial % 10)) % 10;
        const routing = `${first8}${check}`;
        const wrong = `${first8}${(check + 1) % 10}`;
        expect(routingNumberProblem(wrong)).toBeDefined();
        if (routing !== '000000000') expect(routingNumberProblem(routing)).toBeUndefined();
      }),
    );
  });
});

describe('account numbers', () => {
  it('takes 4 to 17 digits', () => {
    expect(accountNumberProblem('1234')).toBeUndefined();
    expect(accountNumberProblem('12345678901234567')).toBeUndefined();
    for (const value of ['123', '123456789012345678', '1234-5678', 'abcd', '']) {
      expect(accountNumberProblem(value)?.message).toBe('must be 4 to 17 digits');
    }
  });
});
