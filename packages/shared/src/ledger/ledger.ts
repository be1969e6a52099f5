import { and, asc, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { type LedgerEntry, ledgerEntries, type PostingKind } from '../db/schema/ledger';
import { newId } from '../ids';
import { type LedgerLine, unbalancedReason } from './lines';

export type { LedgerEntry, PostingKind };

export type PostInput = { accountId: string; paymentId: string; kind: PostingKind; lines: LedgerLine[]; now: Date };

/**
 * Writes one balanced posting and returns its id. Call it with the transaction that makes the state change.
 * Throws (writing nothing) when the lines are empty, not integer cents, name an unknown account or don't sum
 * to zero. Zero-amount lines are skipped; a posting whose lines are all zero writes no entry.
 *
 * The ledger is append-only: this module exports no update or delete, by design (DESIGN §13).
 */
export async function post(tx: DbOrTx, input: PostInput): Promise<string> {
  const reason = unbalancedReason(input.lines);
  if (reason) throw new Error(`ledger posting refused (${input.kind} of ${input.paymentId}): ${reason}`);
  const postingId = newId('ledgerPosting', input.now.getTime());
  const entries = input.lines
    .filter((line) => line.amount !== 0)
    .map((line) => ({
      postingId,
      accountId: input.accountId,
      paymentId: input.paymentId,
      kind: input.kind,
      ledgerAccount: line.ledgerAccount,
      amount: line.amount,
      createdAt: input.now,
    }));
  // One multi-row INSERT: the posting lands whole or not at all, even outside a transaction.
  if (entries.length > 0) await tx.insert(ledgerEntries).values(entries);
  return postingId;
}

/** The balance of a ledger account in cents: the sum of its entries (optionally of one platform account). */
export async function balanceOf(
  db: DbOrTx,
  ledgerAccount: string,
  options: { accountId?: string } = {},
): Promise<number> {
  const filter = and(
    eq(ledgerEntries.ledgerAccount, ledgerAccount),
    options.accountId ? eq(ledgerEntries.accountId, options.accountId) : undefined,
  );
  const [row] = await db
    .select({ balance: sql<string>`coalesce(sum(${ledgerEntries.amount}), 0)::text` })
    .from(ledgerEntries)
    .where(filter);
  return Number(row?.balance ?? 0);
}

/** Every entry of a payment's postings, in the order written. */
export async function entriesForPayment(db: DbOrTx, paymentId: string): Promise<LedgerEntry[]> {
  return db.select().from(ledgerEntries).where(eq(ledgerEntries.paymentId, paymentId)).orderBy(asc(ledgerEntries.id));
}
