import { and, asc, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { type Part, send } from '../db/raw';
import { type LedgerEntry, ledgerEntries, type PostingKind } from '../db/schema/ledger';
import { texts } from '../db/unnest';
import { newId } from '../ids';
import { type LedgerLine, unbalancedReason } from './lines';

export type { LedgerEntry, PostingKind };

export type PostInput = { accountId: string; paymentId: string; kind: PostingKind; lines: LedgerLine[]; now: Date };

/**
 * Writes one balanced posting and returns its id. Call it with the transaction that makes the state change.
 * Throws (writing nothing) when the lines are empty, not integer cents, name an unknown account or don't sum
 * to zero. Zero-amount lines are skipped; a posting whose lines are all zero writes no entry.
 *
 * The ledger is append-only: this module exports no update or delete, by design (docs/design.md).
 */
export async function post(tx: DbOrTx, input: PostInput): Promise<string> {
  const [postingId] = await postMany(tx, [input]);
  return postingId!;
}

/**
 * Writes many balanced postings in one statement (settlement batches) and returns their ids in order. Every
 * posting is checked first: one unbalanced posting refuses them all, so nothing is half-written. One INSERT: the
 * postings land whole or not at all, even outside a transaction.
 */
export async function postMany(tx: DbOrTx, inputs: PostInput[]): Promise<string[]> {
  const { ids, part } = postingsPart(inputs);
  if (part) await send(tx, part.text, part.params);
  return ids;
}

const INSERT_ENTRIES = `
  insert into ledger_entries (posting_id, account_id, payment_id, kind, ledger_account, amount, created_at)
  select posting_id, account_id, payment_id, kind, ledger_account, amount::bigint, created_at::timestamptz
  from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
    as entry(posting_id, account_id, payment_id, kind, ledger_account, amount, created_at)`;

/**
 * The postings as one write to send with others (`sendTogether`), and their ids; no write when every line is zero.
 * Throws when a posting is unbalanced.
 */
export function postingsPart(inputs: PostInput[]): { ids: string[]; part: Part | undefined } {
  for (const input of inputs) {
    const reason = unbalancedReason(input.lines);
    if (reason) throw new Error(`ledger posting refused (${input.kind} of ${input.paymentId}): ${reason}`);
  }
  const ids = inputs.map((input) => newId('ledgerPosting', input.now.getTime()));
  const rows = inputs.flatMap((input, index) =>
    input.lines.filter((line) => line.amount !== 0).map((line) => ({ postingId: ids[index]!, input, line })),
  );
  if (rows.length === 0) return { ids, part: undefined };
  const params = [
    texts(rows.map((row) => row.postingId)),
    texts(rows.map((row) => row.input.accountId)),
    texts(rows.map((row) => row.input.paymentId)),
    texts(rows.map((row) => row.input.kind)),
    texts(rows.map((row) => row.line.ledgerAccount)),
    texts(rows.map((row) => row.line.amount)),
    texts(rows.map((row) => row.input.now.toISOString())),
  ];
  return { ids, part: { text: INSERT_ENTRIES, params } };
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
