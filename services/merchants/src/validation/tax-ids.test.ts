import { describe, expect, it } from 'vitest';
import { einProblem, ssnProblem } from './tax-ids';

describe('SSN', () => {
  it.each(['123456789', '123-45-6789', '665999999', '001010001', '899991234'])('accepts %s', (value) => {
    expect(ssnProblem(value)).toBeUndefined();
  });

  it.each([
    ['12345678', /9 digits/],
    ['1234567890', /9 digits/],
    ['12-345-6789', /9 digits/],
    ['abcdefghi', /9 digits/],
    ['000123456', /area/],
    ['666123456', /area/],
    ['900123456', /area/],
    ['999123456', /area/],
    ['123006789', /group/],
    ['123-00-6789', /group/],
    ['123450000', /serial/],
  ])('refuses %s', (value, message) => {
    const problem = ssnProblem(value);
    expect(problem?.code).toBe('invalid_tax_id');
    expect(problem?.message).toMatch(message);
  });
});

describe('EIN', () => {
  it.each(['123456789', '12-3456789', '01-0000001', '99-9999999', '46-1234567'])('accepts %s', (value) => {
    expect(einProblem(value)).toBeUndefined();
  });

  it.each(['12345678', '1234567890', '123-456789', '12-345-6789', 'ab-cdefghi'])('refuses the format %s', (value) => {
    expect(einProblem(value)).toMatchObject({ code: 'invalid_tax_id', message: expect.stringMatching(/9 digits/) });
  });

  it.each(['00', '07', '08', '09', '17', '18', '19', '28', '29', '49', '69', '70', '78', '79', '89', '96', '97'])(
    'refuses the unassigned prefix %s',
    (prefix) => {
      expect(einProblem(`${prefix}1234567`)).toMatchObject({
        code: 'invalid_tax_id',
        message: expect.stringMatching(/prefix/),
      });
    },
  );
});
