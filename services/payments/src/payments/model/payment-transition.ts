import type { DbOrTx, Part } from '@pps/shared/db';
import { schema, textArray, texts } from '@pps/shared/db';
import {
  assertStoredTransition,
  type PaymentStatus,
  type StoredPaymentStatus,
  statusAfterSettlement,
} from '@pps/shared/states';
import { and, type Column, eq, sql } from 'drizzle-orm';

const { payments } = schema;
type NewPayment = schema.NewPayment;
type Payment = schema.Payment;

/**
 * The state timestamps and outcome columns a status change may set beside the status: `code` and `message` are the
 * processor's latest word on the record (an ACH return replaces the acceptance).
 */
export type TransitionColumns = Partial<
  Pick<
    NewPayment,
    | 'voidedAt'
    | 'settledAt'
    | 'failedAt'
    | 'returnCode'
    | 'code'
    | 'message'
    | 'voidReason'
    // A capture: the captured amount and what follows from it.
    | 'amount'
    | 'gross'
    | 'grossMinusNet'
    | 'net'
    | 'capturedAt'
    | 'settleAt'
    // An authorization's outcome (a 3-D Secure payment authorized after its challenge), and its 3-D Secure.
    | 'authCode'
    | 'avsResult'
    | 'card'
    | 'authorizationExpiresAt'
    | 'threeDSecure'
    | 'nextAction'
    | 'processingSince'
  >
>;

/**
 * The one way a payment's status changes (docs/design.md): the transition is checked against the state table
 * (422 `illegal_transition` otherwise) and written conditionally on the status read, so a caller that did not
 * hold the row lock can never overwrite a change it did not see. Returns the updated row.
 */
export async function transitionPayment(
  tx: DbOrTx,
  input: { payment: Payment; to: StoredPaymentStatus; at: Date; set?: TransitionColumns },
): Promise<Payment> {
  const { payment, to, at, set } = input;
  assertStoredTransition(payment.status, to);
  const [row] = await tx
    .update(payments)
    .set({ ...set, status: to, updatedAt: at })
    .where(and(eq(payments.id, payment.id), eq(payments.status, payment.status)))
    .returning();
  if (!row) throw new Error(`payment ${payment.id} changed status concurrently (expected ${payment.status})`);
  return row;
}

/** A status change to write with others (`transitionsParts`): from the status read under the row lock, to `to`. */
export type StatusChange = { payment: Payment; to: PaymentStatus; at: Date; set?: TransitionColumns };

type TransitionKey = keyof TransitionColumns | 'status' | 'updatedAt';

/** A value as its column's driver value, in text (`unnest($n::text[])` casts it back); null stays null. */
function asText(value: unknown, column: Column): string | null {
  if (value === null || value === undefined) return null;
  const driver = column.mapToDriverValue(value);
  return driver instanceof Date ? driver.toISOString() : String(driver);
}

/**
 * Status changes, at most one per record, as writes to send with others (`sendTogether`), for a caller holding the
 * records' row locks (`lockPayments`): no status changes behind its back, so nothing reads the updates back. Each is
 * checked against the state table first, and still written conditionally on the status read, so a write never
 * overwrites a change it did not see. One write per set of columns changed, however many records: the statements'
 * texts stay few, and so prepared once each.
 */
export function transitionsParts(changes: StatusChange[]): Part[] {
  const bySignature = new Map<string, { keys: TransitionKey[]; changes: StatusChange[] }>();
  const ids = new Set<string>();
  for (const change of changes) {
    assertStoredTransition(change.payment.status, change.to);
    if (ids.has(change.payment.id)) throw new Error(`payment ${change.payment.id}: two status changes in one write`);
    ids.add(change.payment.id);
    const keys = [
      ...(Object.keys(change.set ?? {}) as TransitionKey[]).filter(
        (key) => change.set?.[key as keyof TransitionColumns] !== undefined,
      ),
      'status' as const,
      'updatedAt' as const,
    ].sort();
    const signature = keys.join();
    const group = bySignature.get(signature) ?? { keys, changes: [] };
    group.changes.push(change);
    bySignature.set(signature, group);
  }
  const columnValue = (change: StatusChange, key: TransitionKey) =>
    key === 'status' ? change.to : key === 'updatedAt' ? change.at : change.set?.[key];
  return [...bySignature.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([, { keys, changes: group }]) => ({
      text: `update payments set ${keys
        .map((key, index) => `"${payments[key].name}" = t.c${index}::${payments[key].getSQLType()}`)
        .join(', ')}
        from unnest($1::text[], $2::text[], ${keys.map((_, index) => `$${index + 3}::text[]`).join(', ')})
          as t(id, previous, ${keys.map((_, index) => `c${index}`).join(', ')})
        where payments.id = t.id and payments.status = t.previous`,
      params: [
        texts(group.map((change) => change.payment.id)),
        texts(group.map((change) => change.payment.status)),
        ...keys.map((key) => group.map((change) => asText(columnValue(change, key), payments[key]))),
      ],
    }));
}

/**
 * Settlement of records (docs/design.md), in one statement whatever their number: `pending` becomes `completed`; a
 * parent already `partial_refund` or `refunded` keeps its status and records `settledAt`; anything else is a
 * 422 `illegal_transition` before anything is written. Conditional on the status read and on not being settled
 * yet, so nothing settles twice; throws (the caller's transaction rolls back) if any row changed meanwhile.
 */
export async function settlePayments(
  tx: DbOrTx,
  items: { payment: Payment; at: Date }[],
): Promise<{ payment: Payment; statusChanged: boolean }[]> {
  if (items.length === 0) return [];
  const settled = items.map(({ payment, at }) => {
    const status = statusAfterSettlement(payment.status);
    if (status !== payment.status) assertStoredTransition(payment.status, status);
    return { payment: { ...payment, status, settledAt: at, updatedAt: at }, from: payment.status, at };
  });
  // Written out: the builder's update cannot take its rows from `unnest(…)`, which keeps this one statement
  // with four parameters whatever the batch's size.
  const updated = await tx.execute<{ id: string }>(sql`
    update ${payments} as p
    set status = item.status, settled_at = item.at::timestamptz, updated_at = item.at::timestamptz
    from unnest(
      ${textArray(settled.map((row) => row.payment.id))}, ${textArray(settled.map((row) => row.from))},
      ${textArray(settled.map((row) => row.payment.status))}, ${textArray(settled.map((row) => row.at.toISOString()))}
    ) as item(id, previous, status, at)
    where p.id = item.id and p.status = item.previous and p.settled_at is null
    returning p.id`);
  if (updated.length !== settled.length) {
    throw new Error(`settling ${settled.length} payments changed ${updated.length}: some changed concurrently`);
  }
  return settled.map((row) => ({ payment: row.payment, statusChanged: row.payment.status !== row.from }));
}

/**
 * Authorizations lapsed unused (docs/design.md, Authorize now, capture later): `authorized → voided` with `voidReason`
 * `authorization_expired`, checked against the state table, in one statement whatever their number. Conditional on
 * the status read, so one a capture or cancel took meanwhile is never voided behind its back: the caller's
 * transaction rolls back (throws) if any row changed. Returns the rows as updated.
 */
export async function lapseAuthorizations(tx: DbOrTx, items: { payment: Payment; at: Date }[]): Promise<Payment[]> {
  if (items.length === 0) return [];
  for (const { payment } of items) assertStoredTransition(payment.status, 'voided');
  const updated = await tx.execute<{ id: string }>(sql`
    update ${payments} as p
    set status = 'voided', void_reason = 'authorization_expired', voided_at = item.at::timestamptz,
      updated_at = item.at::timestamptz
    from unnest(
      ${textArray(items.map(({ payment }) => payment.id))}, ${textArray(items.map(({ at }) => at.toISOString()))}
    ) as item(id, at)
    where p.id = item.id and p.status = 'authorized'
    returning p.id`);
  if (updated.length !== items.length) {
    throw new Error(
      `voiding ${items.length} lapsed authorizations changed ${updated.length}: some changed concurrently`,
    );
  }
  return items.map(({ payment, at }) => ({
    ...payment,
    status: 'voided' as const,
    voidReason: 'authorization_expired' as const,
    voidedAt: at,
    updatedAt: at,
  }));
}
