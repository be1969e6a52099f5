import { netOf } from '../money/fees';

/** One side of a posting: a ledger account and its signed movement in integer cents (+ debit to it, − from it). */
export type LedgerLine = { ledgerAccount: string; amount: number };

export type Rail = 'card' | 'ach';
/** A merchant's two balances: money captured but not yet settled, and money settled. */
export type MerchantBucket = 'pending' | 'available';

/** The names of the ledger accounts (docs/design.md). */
export const ledgerAccounts = {
  pending: (merchantId: string) => `merchant:${merchantId}:pending`,
  available: (merchantId: string) => `merchant:${merchantId}:available`,
  /** Paid out, on its way to the merchant's bank. */
  inTransit: (merchantId: string) => `merchant:${merchantId}:in_transit`,
  fees: 'operator:fees',
  external: (rail: Rail) => `external:${rail}`,
  /** The merchants' banks, where payouts go. */
  bank: 'external:bank',
} as const;

const LEDGER_ACCOUNT =
  /^(?:merchant:[^:\s]+:(?:pending|available|in_transit)|operator:fees|external:(?:card|ach|bank))$/;

/** A merchant ledger account's merchant and balance, or null for any other account. */
export function merchantAccountOf(
  ledgerAccount: string,
): { merchantId: string; bucket: MerchantBucket | 'in_transit' } | null {
  const match = /^merchant:([^:\s]+):(pending|available|in_transit)$/.exec(ledgerAccount);
  return match ? { merchantId: match[1]!, bucket: match[2] as MerchantBucket | 'in_transit' } : null;
}

/** True for a name `ledgerAccounts` can produce; posting anything else is a bug. */
export const isLedgerAccount = (name: string) => LEDGER_ACCOUNT.test(name);

const merchantAccount = (merchantId: string, bucket: MerchantBucket) =>
  bucket === 'pending' ? ledgerAccounts.pending(merchantId) : ledgerAccounts.available(merchantId);

function assertCents(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be non-negative integer cents`);
}

/**
 * A capture: the rail's external account gives the gross; the primary merchant's pending balance gets its net
 * (gross − fees − split), the split merchant's pending balance its share (no fee), the operator the fees.
 * Zero lines (no split, a zero net) are kept here and skipped by `post`.
 */
export function captureLines(input: {
  rail: Rail;
  merchantId: string;
  gross: number;
  grossMinusNet: number;
  split?: { merchantId: string; amount: number } | null;
}): LedgerLine[] {
  const { rail, merchantId, gross, grossMinusNet, split } = input;
  const net = netOf({ gross, grossMinusNet, splits: split ? [split.amount] : [] });
  const lines: LedgerLine[] = [
    { ledgerAccount: ledgerAccounts.external(rail), amount: -gross },
    { ledgerAccount: ledgerAccounts.pending(merchantId), amount: net },
  ];
  if (split) lines.push({ ledgerAccount: ledgerAccounts.pending(split.merchantId), amount: split.amount });
  lines.push({ ledgerAccount: ledgerAccounts.fees, amount: grossMinusNet });
  return lines;
}

/** The exact reversal of a posting (a void cancels the capture, fees and split shares included). */
export function reverseLines(lines: LedgerLine[]): LedgerLine[] {
  return lines.map(({ ledgerAccount, amount }) => ({ ledgerAccount, amount: amount === 0 ? 0 : -amount }));
}

/** A refund (or a split refund): the merchant's balance pays back the rail's external account. Fees stay. */
export function refundLines(input: {
  rail: Rail;
  merchantId: string;
  amount: number;
  bucket: MerchantBucket;
}): LedgerLine[] {
  assertCents('amount', input.amount);
  return [
    { ledgerAccount: merchantAccount(input.merchantId, input.bucket), amount: -input.amount },
    { ledgerAccount: ledgerAccounts.external(input.rail), amount: input.amount },
  ];
}

/** A second split: money moves from the primary merchant's balance to another merchant's, nothing else. */
export function secondSplitLines(input: {
  fromMerchantId: string;
  toMerchantId: string;
  amount: number;
  bucket: MerchantBucket;
}): LedgerLine[] {
  assertCents('amount', input.amount);
  return [
    { ledgerAccount: merchantAccount(input.fromMerchantId, input.bucket), amount: -input.amount },
    { ledgerAccount: merchantAccount(input.toMerchantId, input.bucket), amount: input.amount },
  ];
}

/**
 * Settlement: what a record left in a merchant's pending balance becomes available. The amount is signed: a
 * capture's net moves up into available, a refund's debit moves down (pending +x, available −x).
 */
export function settlementLines(input: { merchantId: string; amount: number }): LedgerLine[] {
  if (!Number.isSafeInteger(input.amount)) throw new RangeError('amount must be integer cents');
  return [
    { ledgerAccount: ledgerAccounts.pending(input.merchantId), amount: -input.amount },
    { ledgerAccount: ledgerAccounts.available(input.merchantId), amount: input.amount },
  ];
}

function assertPayoutAmount(value: number): void {
  if (!Number.isSafeInteger(value) || value === 0) throw new RangeError('amount must be non-zero integer cents');
}

/*
 * A payout's three postings take its signed amount: positive for a credit to the merchant's bank, negative for the
 * debit of a balance that stayed negative, whose money moves the other way through the same accounts.
 */

/**
 * A payout made: the merchant's available balance goes in transit to its bank; a debit's amount comes into available
 * at once, in transit from the bank.
 */
export function payoutLines(input: { merchantId: string; amount: number }): LedgerLine[] {
  assertPayoutAmount(input.amount);
  return [
    { ledgerAccount: ledgerAccounts.available(input.merchantId), amount: -input.amount },
    { ledgerAccount: ledgerAccounts.inTransit(input.merchantId), amount: input.amount },
  ];
}

/** A payout's deposit reached the merchant's bank: the money leaves the platform (a debit's arrives from it). */
export function payoutDepositLines(input: { merchantId: string; amount: number }): LedgerLine[] {
  assertPayoutAmount(input.amount);
  return [
    { ledgerAccount: ledgerAccounts.inTransit(input.merchantId), amount: -input.amount },
    { ledgerAccount: ledgerAccounts.bank, amount: input.amount },
  ];
}

/**
 * The bank returned a payout's deposit: the money is back in the merchant's available balance (a returned debit's
 * leaves it again: the balance is as negative as before).
 */
export function payoutFailureLines(input: { merchantId: string; amount: number }): LedgerLine[] {
  assertPayoutAmount(input.amount);
  return [
    { ledgerAccount: ledgerAccounts.bank, amount: -input.amount },
    { ledgerAccount: ledgerAccounts.available(input.merchantId), amount: input.amount },
  ];
}

/**
 * A chargeback: the disputed amount goes back to the card rail and the dispute fee to the operator, both out of the
 * merchant's available balance at once, whatever it holds (it may go negative; payouts carry that forward).
 */
export function disputeWithdrawalLines(input: { merchantId: string; amount: number; fee: number }): LedgerLine[] {
  assertCents('amount', input.amount);
  assertCents('fee', input.fee);
  return [
    { ledgerAccount: ledgerAccounts.available(input.merchantId), amount: -(input.amount + input.fee) },
    { ledgerAccount: ledgerAccounts.external('card'), amount: input.amount },
    { ledgerAccount: ledgerAccounts.fees, amount: input.fee },
  ];
}

/** A won chargeback: the card rail gives the disputed amount back to the merchant's available balance. */
export function disputeReinstatementLines(input: { merchantId: string; amount: number }): LedgerLine[] {
  assertCents('amount', input.amount);
  return [
    { ledgerAccount: ledgerAccounts.external('card'), amount: -input.amount },
    { ledgerAccount: ledgerAccounts.available(input.merchantId), amount: input.amount },
  ];
}

/**
 * Why a set of lines can't be posted, or null when it can: at least one line, every amount a safe integer,
 * every account a known ledger account, and a zero sum (added in BigInt, so no size of input overflows).
 */
export function unbalancedReason(lines: LedgerLine[]): string | null {
  if (lines.length === 0) return 'a posting needs at least one line';
  let sum = 0n;
  for (const line of lines) {
    if (!Number.isSafeInteger(line.amount))
      return `amount ${line.amount} of ${line.ledgerAccount} is not integer cents`;
    if (!isLedgerAccount(line.ledgerAccount)) return `unknown ledger account ${line.ledgerAccount}`;
    sum += BigInt(line.amount);
  }
  return sum === 0n ? null : `lines sum to ${sum}, not zero`;
}
