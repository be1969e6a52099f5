import { and, eq, isNull } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { type NewPayment, type Payment, payments } from '../db/schema/payments';
import { assertTransition, type PaymentStatus, statusAfterSettlement } from './payment-states';

/** The state timestamps and outcome columns a status change may set beside the status. */
export type TransitionColumns = Partial<Pick<NewPayment, 'voidedAt' | 'settledAt' | 'failedAt' | 'returnCode'>>;

/**
 * The one way a payment's status changes (DESIGN §2, §10): the transition is checked against the state table
 * (422 `illegal_transition` otherwise) and written conditionally on the status read, so a caller that did not
 * hold the row lock can never overwrite a change it did not see. Returns the updated row.
 */
export async function transitionPayment(
  tx: DbOrTx,
  input: { payment: Payment; to: PaymentStatus; at: Date; set?: TransitionColumns },
): Promise<Payment> {
  const { payment, to, at, set } = input;
  assertTransition(payment.status, to);
  const [row] = await tx
    .update(payments)
    .set({ ...set, status: to, updatedAt: at })
    .where(and(eq(payments.id, payment.id), eq(payments.status, payment.status)))
    .returning();
  if (!row) throw new Error(`payment ${payment.id} changed status concurrently (expected ${payment.status})`);
  return row;
}

/**
 * Settlement of a record (DESIGN §10): `pending` becomes `completed`; a parent already `partial_refund` or
 * `refunded` keeps its status and records `settledAt`. Anything else is a 422 `illegal_transition`. Written
 * conditionally (still that status, not settled yet), so settling twice is impossible.
 */
export async function settlePayment(
  tx: DbOrTx,
  input: { payment: Payment; at: Date },
): Promise<{ payment: Payment; statusChanged: boolean }> {
  const { payment, at } = input;
  const to = statusAfterSettlement(payment.status);
  if (to !== payment.status) {
    return { payment: await transitionPayment(tx, { payment, to, at, set: { settledAt: at } }), statusChanged: true };
  }
  const [row] = await tx
    .update(payments)
    .set({ settledAt: at, updatedAt: at })
    .where(and(eq(payments.id, payment.id), eq(payments.status, payment.status), isNull(payments.settledAt)))
    .returning();
  if (!row) throw new Error(`payment ${payment.id} changed concurrently while settling`);
  return { payment: row, statusChanged: false };
}
