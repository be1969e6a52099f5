import { ApiError } from '../errors/api-error';

/**
 * The records the API answers "not found" or "forbidden" about, as its errors name them: `code` starts the error
 * code (`payment_not_found`, `payment_forbidden`), `label` the detail (`No payment …`, `Payment … belongs to another
 * account`). The codes are the contract's (docs/api.md), so they live here once.
 */
const recordKinds = {
  account: { code: 'account', label: 'account' },
  achFile: { code: 'ach_file', label: 'ACH file' },
  checkoutSession: { code: 'checkout_session', label: 'checkout session' },
  customer: { code: 'customer', label: 'customer' },
  dispute: { code: 'dispute', label: 'dispute' },
  event: { code: 'event', label: 'event' },
  merchant: { code: 'merchant', label: 'merchant' },
  payment: { code: 'payment', label: 'payment' },
  payout: { code: 'payout', label: 'payout' },
  request: { code: 'request', label: 'request' },
  token: { code: 'token', label: 'vault token' },
  webhook: { code: 'webhook', label: 'webhook endpoint' },
} as const;

export type RecordKind = keyof typeof recordKinds;

/** Where the id came from when it was not the path: a body field (`pointer`) or a query parameter (`parameter`). */
export type IdSource = { pointer?: string; parameter?: string };

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * `<kind>_not_found`: no such record, or an id that cannot be one. 404, except where the contract answers 400 for an
 * unknown record named in a body or a query (`status: 400`).
 */
export const notFound = (
  kind: RecordKind,
  id: string,
  options: IdSource & { status?: 400 | 404; headers?: Record<string, string> } = {},
) =>
  new ApiError({
    status: options.status ?? 404,
    code: `${recordKinds[kind].code}_not_found`,
    detail: `No ${recordKinds[kind].label} ${id}`,
    pointer: options.pointer,
    parameter: options.parameter,
    headers: options.headers,
  });

/** 403 `<kind>_forbidden`: the record exists and is another account's. */
export const forbidden = (kind: RecordKind, id: string, source: IdSource = {}) =>
  new ApiError({
    status: 403,
    code: `${recordKinds[kind].code}_forbidden`,
    detail: `${capitalised(recordKinds[kind].label)} ${id} belongs to another account`,
    pointer: source.pointer,
    parameter: source.parameter,
  });

/** True when the record exists and is the account's. */
export const belongsTo = <T extends { accountId: string }>(
  record: T | null | undefined,
  accountId: string,
): record is T => record?.accountId === accountId;

/**
 * The record the caller may act on: `notFound` when there is none (404, or the contract's 400 with
 * `notFoundStatus`), `forbidden` when it is another account's, both with the id's source when it came from a body
 * or a query. The id in the errors is the record's, as the caller named it.
 */
export function ownedBy<T extends { accountId: string }>(
  record: T | null | undefined,
  caller: { accountId: string },
  kind: RecordKind,
  id: string,
  options: IdSource & { notFoundStatus?: 400 | 404 } = {},
): T {
  const { notFoundStatus, ...source } = options;
  if (!record) throw notFound(kind, id, { ...source, status: notFoundStatus });
  if (record.accountId !== caller.accountId) throw forbidden(kind, id, source);
  return record;
}
