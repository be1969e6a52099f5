import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { type Part, sendTogether } from '../db/prepared-statements';
import { type LedgerEntry, ledgerBalances, ledgerEntries, type PostingKind } from '../db/schema/ledger';
import { texts } from '../db/unnest';
import { newId } from '../ids';
import { balanceTransactionsOf, type PostingOf } from './balance-transactions';
import { unbalancedReason } from './lines';

export type { LedgerEntry, PostingKind };

/** A posting to write: balanced lines, the record that moves the money and its merchant (docs/design.md). */
export type PostInput = PostingOf;

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
  const { ids, parts } = postingsPart(inputs);
  if (parts.length > 0) await sendTogether(tx, parts);
  return ids;
}

const INSERT_ENTRIES = `
  insert into ledger_entries (posting_id, account_id, payment_id, kind, ledger_account, amount, created_at)
  select posting_id, account_id, payment_id, kind, ledger_account, amount::bigint, created_at::timestamptz
  from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
    as entry(posting_id, account_id, payment_id, kind, ledger_account, amount, created_at)`;

const INSERT_BALANCE_TRANSACTIONS = `
  insert into balance_transactions (id, account_id, merchant_id, type, amount, fee, net, source_id, posting_id, status,
    available_on, payout_id, created_at)
  select id, account_id, merchant_id, type, amount::bigint, fee::bigint, net::bigint, source_id, posting_id, status,
    available_on::timestamptz, payout_id, created_at::timestamptz
  from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
    $9::text[], $10::text[], $11::text[], $12::text[], $13::text[])
    as bt(id, account_id, merchant_id, type, amount, fee, net, source_id, posting_id, status, available_on, payout_id,
      created_at)`;

/**
 * The postings as writes to send with others (`sendTogether`), and their ids: the ledger entries and the balance
 * transactions they make (`balanceTransactionsOf`), which so land together or not at all; no write when every line
 * is zero. Throws when a posting is unbalanced.
 */
export function postingsPart(inputs: PostInput[]): { ids: string[]; parts: Part[] } {
  for (const input of inputs) {
    const reason = unbalancedReason(input.lines);
    if (reason) throw new Error(`ledger posting refused (${input.kind} of ${input.paymentId}): ${reason}`);
  }
  const ids = inputs.map((input) => newId('ledgerPosting', input.now.getTime()));
  const rows = inputs.flatMap((input, index) =>
    input.lines.filter((line) => line.amount !== 0).map((line) => ({ postingId: ids[index]!, input, line })),
  );
  if (rows.length === 0) return { ids, parts: [] };
  const moves = inputs.flatMap((input, index) =>
    balanceTransactionsOf(input).map((bt) => ({ ...bt, postingId: ids[index]!, input })),
  );
  const entries = [
    texts(rows.map((row) => row.postingId)),
    texts(rows.map((row) => row.input.accountId)),
    texts(rows.map((row) => row.input.paymentId)),
    texts(rows.map((row) => row.input.kind)),
    texts(rows.map((row) => row.line.ledgerAccount)),
    texts(rows.map((row) => row.line.amount)),
    texts(rows.map((row) => row.input.now.toISOString())),
  ];
  const parts: Part[] = [{ text: INSERT_ENTRIES, params: entries }];
  if (moves.length === 0) return { ids, parts };
  const balanceTransactions = [
    texts(moves.map((move) => newId('balanceTransaction', move.input.now.getTime()))),
    texts(moves.map((move) => move.input.accountId)),
    texts(moves.map((move) => move.merchantId)),
    texts(moves.map((move) => move.type)),
    texts(moves.map((move) => move.amount)),
    texts(moves.map((move) => move.fee)),
    texts(moves.map((move) => move.net)),
    texts(moves.map((move) => move.input.paymentId)),
    texts(moves.map((move) => move.postingId)),
    texts(moves.map((move) => move.status)),
    texts(moves.map((move) => move.availableOn.toISOString())),
    texts(moves.map((move) => move.payoutId)),
    texts(moves.map((move) => move.input.now.toISOString())),
  ];
  parts.push({ text: INSERT_BALANCE_TRANSACTIONS, params: balanceTransactions });
  return { ids, parts };
}

/**
 * The kept balances of these ledger accounts in cents (`ledger_balances`: the sum of each account's slots), read in
 * one statement whatever the accounts' histories; an account with no entry is zero.
 */
export async function keptBalances(db: DbOrTx, accounts: string[]): Promise<Map<string, number>> {
  const rows = await db
    .select({ ledgerAccount: ledgerBalances.ledgerAccount, balance: sql<string>`sum(${ledgerBalances.balance})::text` })
    .from(ledgerBalances)
    .where(inArray(ledgerBalances.ledgerAccount, accounts))
    .groupBy(ledgerBalances.ledgerAccount);
  const sums = new Map(rows.map((row) => [row.ledgerAccount, Number(row.balance)]));
  return new Map(accounts.map((account) => [account, sums.get(account) ?? 0]));
}

/**
 * The balance of a ledger account in cents: its kept balance; with `accountId`, the sum of that platform account's
 * entries in a shared ledger account (`operator:fees`, `external:*`): a scan of the ledger, for tests and operators
 * only (no index serves it since migration 0025).
 */
export async function balanceOf(
  db: DbOrTx,
  ledgerAccount: string,
  options: { accountId?: string } = {},
): Promise<number> {
  if (!options.accountId) return (await keptBalances(db, [ledgerAccount])).get(ledgerAccount) ?? 0;
  const [row] = await db
    .select({ balance: sql<string>`coalesce(sum(${ledgerEntries.amount}), 0)::text` })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.ledgerAccount, ledgerAccount), eq(ledgerEntries.accountId, options.accountId)));
  return Number(row?.balance ?? 0);
}

/** Every entry of a payment's postings, in the order written. */
export async function entriesForPayment(db: DbOrTx, paymentId: string): Promise<LedgerEntry[]> {
  return db.select().from(ledgerEntries).where(eq(ledgerEntries.paymentId, paymentId)).orderBy(asc(ledgerEntries.id));
}

/**
 * Every entry of these records' postings (a payment and the records it owns), in the order written: one read along
 * the primary key `(payment_id, id)` per record, whatever the ledger's size.
 */
export async function entriesForPayments(db: DbOrTx, paymentIds: string[]): Promise<LedgerEntry[]> {
  if (paymentIds.length === 0) return [];
  return db
    .select()
    .from(ledgerEntries)
    .where(inArray(ledgerEntries.paymentId, paymentIds))
    .orderBy(asc(ledgerEntries.id));
}
