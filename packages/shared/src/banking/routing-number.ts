/** Why a field's value is refused: the message, and a code where the API names one. */
export type FieldProblem = { code?: string; message: string };

const invalid = (message: string, code?: string): FieldProblem => (code ? { code, message } : { message });

/** Federal Reserve routing symbol prefixes: 00–12 (banks), 21–32 (thrifts), 61–72 (electronic), 80 (traveller's cheques). */
const FED_PREFIXES = new Set([...range(0, 12), ...range(21, 32), ...range(61, 72), 80]);

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

/** ABA checksum: 3·(d1+d4+d7) + 7·(d2+d5+d8) + (d3+d6+d9) ≡ 0 (mod 10). */
export function abaChecksumValid(routing: string): boolean {
  if (!/^\d{9}$/.test(routing)) return false;
  const d = [...routing].map(Number);
  const sum = 3 * (d[0]! + d[3]! + d[6]!) + 7 * (d[1]! + d[4]! + d[7]!) + (d[2]! + d[5]! + d[8]!);
  return sum % 10 === 0;
}

const CODE = 'invalid_routing_number';

/** A routing number: 9 digits, a Federal Reserve prefix, the ABA checksum, not all zeros. */
export function routingNumberProblem(value: string): FieldProblem | undefined {
  if (!/^\d{9}$/.test(value)) return invalid('must be 9 digits (an ABA routing number)', CODE);
  if (/^0{9}$/.test(value)) return invalid('is not a routing number (all zeros)', CODE);
  if (!FED_PREFIXES.has(Number(value.slice(0, 2)))) {
    return invalid('does not start with a valid Federal Reserve prefix (00–12, 21–32, 61–72, 80)', CODE);
  }
  if (!abaChecksumValid(value)) return invalid('fails the ABA checksum', CODE);
  return undefined;
}

export const isValidRoutingNumber = (value: string) => routingNumberProblem(value) === undefined;

/** A bank account number: 4 to 17 digits (the DFI account field of a NACHA entry holds 17). */
export function accountNumberProblem(value: string): FieldProblem | undefined {
  return /^\d{4,17}$/.test(value) ? undefined : invalid('must be 4 to 17 digits');
}
