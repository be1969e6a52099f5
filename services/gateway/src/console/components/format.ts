/** "1000" cents → "$10.00"; "-500" → "−$5.00". Integer arithmetic on the digits: money never passes through a float. */
export function dollars(cents: string | number | bigint): string {
  const value = BigInt(cents);
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const whole = (abs / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const fraction = (abs % 100n).toString().padStart(2, '0');
  return `${negative ? '−' : ''}$${whole}.${fraction}`;
}

/** "10.00" or "10" (dollars typed in a form) → cents as a digit string; undefined when it is not an amount. */
export function centsOf(text: string): string | undefined {
  const match = /^\s*\$?(\d{1,9})(?:\.(\d{1,2}))?\s*$/.exec(text);
  if (!match) return undefined;
  const cents = BigInt(match[1]!) * 100n + BigInt((match[2] ?? '').padEnd(2, '0'));
  return cents.toString();
}

/** An instant as people read it in the console: `2026-11-29 14:05:09 UTC`. */
export const when = (iso: string | null | undefined) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : '—');
