import { accountClock, accountsAhead } from '@pps/shared/clock';
import { type DbOrTx, schema, textArray } from '@pps/shared/db';
import { and, asc, eq, like, sql } from 'drizzle-orm';

const { accounts, ledgerEntries, payments } = schema;

export type Payment = schema.Payment;
export type DueRecord = { payment: Payment; clockOffsetSeconds: number };

/**
 * Claims up to `limit` records due, oldest first, and locks them until the transaction ends: with `accountId`, the
 * account's records due by its own clock; without, every account's records due by the real clock, which no
 * account's is behind (sandbox clocks only move forward; the pass then takes each account that is ahead on its
 * own, `accountsAhead`). `SKIP LOCKED`: rows another worker (or a refund on that payment) holds are left for the
 * next batch, so two workers never take the same record and nobody waits. With them, the scope's clock (null for an
 * unknown account): what the settlement service records of the batch (its ACH file) is stamped with it.
 */
export async function claimDueRecords(
  tx: DbOrTx,
  input: { now: Date; limit: number; accountId?: string },
): Promise<{ clock: Date | null; due: DueRecord[] }> {
  const clock = await scopeClock(tx, input);
  if (!clock) return { clock: null, due: [] };
  return { clock, due: await dueRecords(tx, { clock, limit: input.limit, accountId: input.accountId }) };
}

/** A pass's clock: one account's sandbox clock, or the real clock for every account; none for an unknown account. */
const scopeClock = (tx: DbOrTx, input: { now: Date; accountId?: string }) =>
  input.accountId ? accountClock(tx, input.accountId, input.now) : Promise.resolve(input.now);

export { accountClock, accountsAhead };

/**
 * The claim, `settle_at ≤ clock`, read as a range along the due indexes in the order it takes the records:
 * `(settle_at, id)` for every account, `(account_id, settle_at, id)` for one. Each condition is a value the
 * planner sees: with the account's offset in the condition (`≤ now + offset`) no index could bound it, and every
 * pass read every unsettled record; and since a day's records all settle at the same Pacific midnight, an index
 * without the id had each batch sort every record due (docs/decisions.md, Performance: scans that grew with the
 * tables).
 */
export function dueRecords(tx: DbOrTx, input: { clock: Date; limit: number; accountId?: string }) {
  return tx
    .select({ payment: payments, clockOffsetSeconds: accounts.clockOffsetSeconds })
    .from(payments)
    .innerJoin(accounts, eq(accounts.id, payments.accountId))
    .where(
      and(
        input.accountId ? eq(payments.accountId, input.accountId) : undefined,
        // The due indexes' condition as their text has it, constants and all: with the statuses as parameters, a
        // prepared plan could not prove the partial indexes apply.
        sql.raw(schema.dueCondition('payments')),
        sql`${payments.settleAt} <= ${input.clock.toISOString()}::timestamptz`,
      ),
    )
    .orderBy(asc(payments.settleAt), asc(payments.id))
    .limit(input.limit)
    .for('update', { of: payments, skipLocked: true });
}

/**
 * Claims up to `limit` authorizations lapsed by the clock (`authorizationExpiresAt ≤` it), oldest first, with
 * `SKIP LOCKED` as `claimDueRecords` does and for the same scopes: one a capture or cancel holds is left to it (it
 * sees the lapse itself), and two workers never take the same one.
 */
export async function claimLapsedAuthorizations(
  tx: DbOrTx,
  input: { now: Date; limit: number; accountId?: string },
): Promise<DueRecord[]> {
  const clock = await scopeClock(tx, input);
  if (!clock) return [];
  return tx
    .select({ payment: payments, clockOffsetSeconds: accounts.clockOffsetSeconds })
    .from(payments)
    .innerJoin(accounts, eq(accounts.id, payments.accountId))
    .where(
      and(
        input.accountId ? eq(payments.accountId, input.accountId) : undefined,
        eq(payments.status, 'authorized'),
        sql`${payments.authorizationExpiresAt} <= ${clock.toISOString()}::timestamptz`,
      ),
    )
    .orderBy(asc(payments.authorizationExpiresAt), asc(payments.id))
    .limit(input.limit)
    .for('update', { of: payments, skipLocked: true });
}

/** Every child record of these parents (refunds, voids, split refunds, second splits), oldest first. */
export async function childrenOf(tx: DbOrTx, parentIds: string[]): Promise<Payment[]> {
  if (parentIds.length === 0) return [];
  return tx
    .select()
    .from(payments)
    .where(sql`${payments.parentPaymentId} = any(${textArray(parentIds)})`)
    .orderBy(asc(payments.createdAt), asc(payments.id));
}

/** What each of these records holds in merchants' pending balances, per record and merchant (signed cents). */
export async function pendingHeld(
  tx: DbOrTx,
  paymentIds: string[],
): Promise<{ paymentId: string; merchantId: string; amount: number }[]> {
  if (paymentIds.length === 0) return [];
  const rows = await tx
    .select({
      paymentId: ledgerEntries.paymentId,
      ledgerAccount: ledgerEntries.ledgerAccount,
      amount: sql<string>`sum(${ledgerEntries.amount})::text`,
    })
    .from(ledgerEntries)
    .where(
      and(
        sql`${ledgerEntries.paymentId} = any(${textArray(paymentIds)})`,
        like(ledgerEntries.ledgerAccount, 'merchant:%:pending'),
      ),
    )
    .groupBy(ledgerEntries.paymentId, ledgerEntries.ledgerAccount);
  return rows
    .map((row) => ({
      paymentId: row.paymentId,
      merchantId: row.ledgerAccount.slice('merchant:'.length, -':pending'.length),
      amount: Number(row.amount),
    }))
    .filter((row) => row.amount !== 0);
}

/** A capture's entries, to reverse on an ACH return. */
export async function captureEntries(tx: DbOrTx, paymentId: string) {
  return tx
    .select({ ledgerAccount: ledgerEntries.ledgerAccount, amount: ledgerEntries.amount })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.paymentId, paymentId), eq(ledgerEntries.kind, 'capture')));
}
