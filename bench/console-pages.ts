/**
 * The console's pages as bench:history times them (docs/design.md, The console): a browser's session made by the
 * sign-in form, each page a GET with its cookie, and the CSV export of a filtered list read to its end.
 */

/** A session cookie as the sign-in form makes one: its CSRF cookie and token first, then the key posted. */
export async function consoleSession(base: string, key: string): Promise<Record<string, string>> {
  const form = await fetch(`${base}/console/sign-in`);
  const formCookie = cookiesOf(form);
  const csrf = /name="_csrf" value="([^"]*)"/.exec(await form.text())?.[1] ?? '';
  const signedIn = await fetch(`${base}/console/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: formCookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, key }).toString(),
  });
  if (signedIn.status !== 303) throw new Error(`console sign-in answered ${signedIn.status}`);
  return { cookie: cookiesOf(signedIn) };
}

const cookiesOf = (response: Response) =>
  response.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ');

/** The ids the pages show: a payment of the history, its merchant, a payout, an event and a logged request. */
export type ConsoleIds = {
  paymentId: string;
  merchantId: string;
  payoutId: string;
  eventId: string;
  requestId: string;
};

/** Every page an account's developer opens, by name, with the path to GET. */
export function accountPages(ids: ConsoleIds, card: string, email: string): [string, string][] {
  return [
    ['console home', '/console'],
    ['console payments', '/console/payments'],
    ['console payments, Card last 4', `/console/payments?last4=${card.slice(-4)}`],
    ['console payments, Customer email', `/console/payments?email=${encodeURIComponent(email)}`],
    ['console payments, Amount from/to', '/console/payments?amountFrom=10&amountTo=50'],
    ['console payment', `/console/payments/${ids.paymentId}`],
    ['console merchants', '/console/merchants'],
    ['console merchant', `/console/merchants/${ids.merchantId}`],
    ['console payouts', '/console/payouts'],
    ['console payout', `/console/payouts/${ids.payoutId}`],
    ['console disputes', '/console/disputes'],
    ['console webhooks', '/console/webhooks'],
    ['console events', '/console/events'],
    ['console event', `/console/events/${ids.eventId}`],
    ['console request log', '/console/requests'],
    ['console request', `/console/requests/${ids.requestId}`],
    ['console apps and keys', '/console/developers'],
  ];
}

/** The operator's pages. */
export const OPERATOR_PAGES: [string, string][] = [
  ['console accounts (operator)', '/console/accounts'],
  ['console health (operator)', '/console/health'],
  ['console ACH files (operator)', '/console/ach-files'],
  ['console settlement reports (operator)', '/console/settlement-reports'],
];

/** The export of the payments created on `from`…`to` (dates), read to its end: its seconds and its data rows. */
export async function timedExport(base: string, headers: Record<string, string>, from: string, to: string) {
  const started = performance.now();
  const response = await fetch(`${base}/console/payments/export.csv?createdFrom=${from}&createdTo=${to}`, { headers });
  if (response.status !== 200) throw new Error(`the export answered ${response.status}`);
  let rows = -1; // the header line is no row
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    for (const byte of chunk) if (byte === 0x0a) rows += 1;
  }
  return { seconds: Number(((performance.now() - started) / 1000).toFixed(2)), rows };
}
