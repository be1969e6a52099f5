import { isId } from '@pps/shared/ids';
import type { Child } from 'hono/jsx';

/** The console pages of records, by the kind of id (a refund, a split or an ACH return is a payment too). */
const PAGES = [
  ['payment', '/console/payments'],
  ['payout', '/console/payouts'],
  ['dispute', '/console/disputes'],
  ['merchant', '/console/merchants'],
] as const;

/** A record's id as a link to its console page when it has one, else as text; a dash for none. */
export function recordLink(id: string | null | undefined): Child {
  if (!id) return '—';
  const page = PAGES.find(([kind]) => isId(kind, id));
  return page ? <a href={`${page[1]}/${id}`}>{id}</a> : id;
}
