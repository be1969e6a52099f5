import type { DbOrTx } from '../db/client';
import { type Part, send } from '../db/prepared-statements';
import type { PostingKind } from '../db/schema/ledger';
import type { BalanceTransactionStatus, BalanceTransactionType } from '../db/schema/payouts';
import { texts } from '../db/unnest';
import { type LedgerLine, ledgerAccounts, merchantAccountOf } from './lines';

/** A posting as `postingsPart` receives it (the fields this module reads). */
export type PostingOf = {
  accountId: string;
  /** The record that moves the money: a payment, refund, void, split or payout. */
  paymentId: string;
  /** The record's merchant: the one a capture's fees are charged to. */
  merchantId: string;
  kind: PostingKind;
  lines: LedgerLine[];
  now: Date;
  /** When money this posting puts in a pending balance is due to settle (default `now`). */
  availableOn?: Date;
};

export type BalanceTransactionRow = {
  merchantId: string;
  type: BalanceTransactionType;
  amount: number;
  fee: number;
  net: number;
  status: BalanceTransactionStatus;
  availableOn: Date;
  /** Set on a payout's own row (its deposit), so no later payout carries it. */
  payoutId: string | null;
};

/**
 * Which balance transaction a posting makes for each merchant it moves: settlement and a payout's creation move
 * money between a merchant's own balances (pending → available → in transit) and make none; every other kind makes
 * one per merchant whose total changes. The fees of a capture (and of its reversal: a void, an ACH return) are the
 * record's merchant's.
 */
const typeOf: Record<PostingKind, ((isRecordMerchant: boolean) => BalanceTransactionType) | null> = {
  capture: (own) => (own ? 'payment' : 'split'),
  void: () => 'void',
  refund: () => 'refund',
  refund_split: () => 'split_refund',
  second_split: () => 'second_split',
  ach_return: () => 'ach_return',
  settlement: null,
  payout: null,
  payout_deposit: () => 'payout',
  payout_failure: () => 'payout_failure',
  dispute: () => 'dispute',
  dispute_reversal: () => 'dispute_reversal',
  negative_balance_debit: () => 'negative_balance_debit',
};

/**
 * Reversals (a void, an ACH return) cancel a capture still in pending: the money never becomes available, so they
 * are `available` at once, and whoever writes them turns the capture's rows `available` too (`net` zero together).
 */
const REVERSALS: ReadonlySet<PostingKind> = new Set(['void', 'ach_return']);
/** A payout's own row (its deposit, or a debit's arrival): its payout accounts for it, so no later one carries it. */
const CARRIED_BY_ITSELF: ReadonlySet<PostingKind> = new Set(['payout_deposit', 'negative_balance_debit']);
const CHARGES_FEES: ReadonlySet<PostingKind> = new Set(['capture', 'void', 'ach_return', 'dispute']);

/**
 * The balance transactions of one balanced posting (docs/design.md, Balances): one per merchant whose pending +
 * available + in-transit total it changes, `net` that change, so Σ net of a merchant's rows is that total by
 * construction. `fee` is the operator's line of a capture (or reversal) for the record's merchant, and
 * `amount = net + fee`.
 */
export function balanceTransactionsOf(posting: PostingOf): BalanceTransactionRow[] {
  const type = typeOf[posting.kind];
  if (!type) return [];
  const fees = CHARGES_FEES.has(posting.kind)
    ? posting.lines.filter((line) => line.ledgerAccount === ledgerAccounts.fees).reduce((a, l) => a + l.amount, 0)
    : 0;
  const moved = new Map<string, { net: number; pending: boolean }>();
  for (const line of posting.lines) {
    const account = merchantAccountOf(line.ledgerAccount);
    if (!account) continue;
    const row = moved.get(account.merchantId) ?? { net: 0, pending: false };
    row.net += line.amount;
    row.pending ||= account.bucket === 'pending' && line.amount !== 0;
    moved.set(account.merchantId, row);
  }
  const rows: BalanceTransactionRow[] = [];
  for (const [merchantId, { net, pending }] of moved) {
    const own = merchantId === posting.merchantId;
    const fee = own ? fees : 0;
    if (net === 0 && fee === 0) continue;
    const stillPending = pending && !REVERSALS.has(posting.kind);
    rows.push({
      merchantId,
      type: type(own),
      amount: net + fee,
      fee,
      net,
      status: stillPending ? 'pending' : 'available',
      availableOn: stillPending ? (posting.availableOn ?? posting.now) : posting.now,
      payoutId: CARRIED_BY_ITSELF.has(posting.kind) ? posting.paymentId : null,
    });
  }
  return rows;
}

/**
 * Turns the pending balance transactions of these records `available` (at settlement, at the instant each settled;
 * for a void or an ACH return, the capture they cancel), one statement for any number of records.
 */
export async function makeAvailable(tx: DbOrTx, records: { sourceId: string; at: Date }[]): Promise<void> {
  if (records.length === 0) return;
  const { text, params } = makeAvailablePart(records);
  await send(tx, text, params);
}

const MAKE_AVAILABLE = `
  update balance_transactions set status = 'available', available_on = settled.at::timestamptz
  from unnest($1::text[], $2::text[]) as settled(source_id, at)
  where balance_transactions.source_id = settled.source_id and balance_transactions.status = 'pending'`;

/** `makeAvailable` as a write to send with others (`sendTogether`). */
export function makeAvailablePart(records: { sourceId: string; at: Date }[]): Part {
  return {
    text: MAKE_AVAILABLE,
    params: [texts(records.map((record) => record.sourceId)), texts(records.map((record) => record.at.toISOString()))],
  };
}
