import { type FieldProblem, invalid } from './problem';

const CODE = 'invalid_tax_id';

/** `123456789` or `123-45-6789`. */
const SSN_FORMAT = /^(\d{3})-?(\d{2})-?(\d{4})$/;

/** A Social Security number in the SSA's issued ranges: area not 000, 666 or 9xx; group not 00; serial not 0000. */
export function ssnProblem(value: string): FieldProblem | undefined {
  const match = SSN_FORMAT.exec(value);
  if (!match) return invalid('must be 9 digits (123456789 or 123-45-6789)', CODE);
  const [, area, group, serial] = match as unknown as [string, string, string, string];
  if (area === '000' || area === '666' || area.startsWith('9')) {
    return invalid('is not a valid SSN: area number 000, 666 and 900–999 are never issued', CODE);
  }
  if (group === '00') return invalid('is not a valid SSN: group number 00 is never issued', CODE);
  if (serial === '0000') return invalid('is not a valid SSN: serial number 0000 is never issued', CODE);
  return undefined;
}

/** EIN prefixes the IRS assigns (campus and internet prefixes); 00, 07–09, 17–19, 28–29, 49, 69–70, 78–79, 89, 96–97 are not. */
const IRS_PREFIXES = new Set(
  (
    '01 02 03 04 05 06 10 11 12 13 14 15 16 20 21 22 23 24 25 26 27 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 ' +
    '47 48 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 71 72 73 74 75 76 77 80 81 82 83 84 85 86 87 88 90 ' +
    '91 92 93 94 95 98 99'
  ).split(' '),
);

/** An Employer Identification Number: `123456789` or `12-3456789`, with a prefix the IRS assigns. */
export function einProblem(value: string): FieldProblem | undefined {
  if (!/^\d{2}-?\d{7}$/.test(value)) return invalid('must be 9 digits (123456789 or 12-3456789)', CODE);
  if (!IRS_PREFIXES.has(value.slice(0, 2)))
    return invalid(`is not a valid EIN: prefix ${value.slice(0, 2)} is not assigned by the IRS`, CODE);
  return undefined;
}
