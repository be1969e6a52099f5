import { and, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import type { Part } from '../db/raw';
import { type NewPayment, type Payment, payments } from '../db/schema/payments';
import { textArray } from '../db/unnest';
import { assertStoredTransition, type PaymentStatus, statusAfterSettlement } from './payment-states';

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
  >
>;

/**
 * The one way a payment's status changes (docs/design.md): the transition is checked against the state table
 * (422 `illegal_transition` otherwise) and written conditionally on the status read, so a caller that did not
 * hold the row lock can never overwrite a change it did not see. Returns the updated row.
 */
export async function transitionPayment(
  tx: DbOrTx,
  input: { payment: Payment; to: PaymentStatus; at: Date; set?: TransitionColumns },
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

/**
 * `transitionPayment` as a write to send with others (`sendTogether`), and the record as it will read, for a caller
 * that holds the record's row lock (`lockPayment`): its status cannot have changed since it was read, so nothing
 * reads the update back. Still conditional on that status: a write can never overwrite a change it did not see.
 */
export function transitionPart(input: { payment: Payment; to: PaymentStatus; at: Date; set?: TransitionColumns }): {
  payment: Payment;
  part: Part;
} {
  const { payment, to, at, set } = input;
  assertStoredTransition(payment.status, to);
  const values: TransitionColumns & Pick<Payment, 'status' | 'updatedAt'> = { ...set, status: to, updatedAt: at };
  const keys = (Object.keys(values) as (keyof typeof values)[]).filter((key) => values[key] !== undefined);
  const assignments = keys.map((key, index) => `"${payments[key].name}" = $${index + 3}`);
  return {
    payment: { ...payment, ...values },
    part: {
      text: `update payments set ${assignments.join(', ')} where id = $1 and status = $2`,
      params: [
        payment.id,
        payment.status,
        ...keys.map((key) => (values[key] === null ? null : payments[key].mapToDriverValue(values[key] as never))),
      ],
    },
  };
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
