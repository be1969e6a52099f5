import { type FieldProblem, invalid } from './problem';

/** USPS codes of the states, DC, the territories and the armed-forces "states". */
export const US_STATE_CODES: ReadonlySet<string> = new Set(
  (
    'AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI ' +
    'SC SD TN TX UT VT VA WA WV WI WY DC AS GU MP PR VI UM FM MH PW AA AE AP'
  ).split(' '),
);

export function stateProblem(value: string): FieldProblem | undefined {
  return US_STATE_CODES.has(value.toUpperCase())
    ? undefined
    : invalid('must be a US state or territory code (e.g. CA)');
}

/** ZIP or ZIP+4: `94105`, `94105-1234` or `941051234`. */
export function zipProblem(value: string): FieldProblem | undefined {
  return /^\d{5}(?:-?\d{4})?$/.test(value)
    ? undefined
    : invalid('must be a 5-digit ZIP or ZIP+4 (94105 or 94105-1234)');
}

const US_NAMES = new Set(['US', 'USA']);

/** Merchants are US businesses: the country is `US` or `USA` (ISO 3166 alpha-2 or alpha-3). */
export function countryProblem(value: string): FieldProblem | undefined {
  return US_NAMES.has(value.toUpperCase())
    ? undefined
    : invalid('must be US or USA: merchants are onboarded in the US only');
}
