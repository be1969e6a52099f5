import type { DbOrTx } from '@pps/shared/db';
import { schema, textArray } from '@pps/shared/db';
import { assertPayoutTransition, type PayoutStatus } from '@pps/shared/states';
import { sql } from 'drizzle-orm';

const { payouts } = schema;
type Payout = schema.Payout;

/** A payout's status change and the outcome columns it sets: when it was paid, or when and why it failed. */
export type PayoutChange = {
  payout: Payout;
  to: PayoutStatus;
  at: Date;
  failure?: { code: string; message: string };
};

/**
 * The one way payouts change status (docs/design.md, Payouts), set-based like `settlePayments`: every change is
 * checked against the state table first (422 `illegal_transition`, nothing written), then one
 * `UPDATE … FROM unnest(…)` conditional on the status read, so a payout never ends twice; throws (the caller's
 * transaction rolls back) if any row changed meanwhile. Returns the payouts as updated, in order.
 */
export async function transitionPayouts(tx: DbOrTx, changes: PayoutChange[]): Promise<Payout[]> {
  if (changes.length === 0) return [];
  const updated = changes.map(({ payout, to, at, failure }) => {
    assertPayoutTransition(payout.status, to);
    return {
      ...payout,
      status: to,
      updatedAt: at,
      paidAt: to === 'paid' ? at : payout.paidAt,
      failedAt: to === 'failed' ? at : payout.failedAt,
      failureCode: failure?.code ?? payout.failureCode,
      failureMessage: failure?.message ?? payout.failureMessage,
    };
  });
  const column = (pick: (payout: Payout) => string | null) => textArray(updated.map(pick));
  const iso = (instant: Date | null) => instant?.toISOString() ?? null;
  // Written out: the builder's update cannot take its rows from `unnest(…)`, which keeps this one statement
  // whatever the batch's size.
  const rows = await tx.execute<{ id: string }>(sql`
    update ${payouts} as p
    set status = change.status, updated_at = change.at::timestamptz, paid_at = change.paid_at::timestamptz,
      failed_at = change.failed_at::timestamptz, failure_code = change.failure_code,
      failure_message = change.failure_message
    from unnest(
      ${column((payout) => payout.id)}, ${textArray(changes.map((change) => change.payout.status))},
      ${column((payout) => payout.status)}, ${column((payout) => payout.updatedAt.toISOString())},
      ${column((payout) => iso(payout.paidAt))}, ${column((payout) => iso(payout.failedAt))},
      ${column((payout) => payout.failureCode)}, ${column((payout) => payout.failureMessage)}
    ) as change(id, previous, status, at, paid_at, failed_at, failure_code, failure_message)
    where p.id = change.id and p.status = change.previous
    returning p.id`);
  if (rows.length !== updated.length) {
    throw new Error(`changing ${updated.length} payouts changed ${rows.length}: some changed concurrently`);
  }
  return updated;
}
