import type { BalanceTransactionType } from '../db/schema/payouts';

/**
 * What each balance transaction type records and which record it names as `sourceId`: docs/api.md's table of
 * types is generated from this (`npm run docs:tables`), and typed by `BalanceTransactionType`, so a new type does
 * not compile until it is described here. `amount`, `fee` and `net` are the merchant's, signed.
 */
export const balanceTransactionCatalogue: Record<BalanceTransactionType, { records: string; source: string }> = {
  payment: {
    records: "a capture, card or ACH, for the payment's merchant: `amount` the gross, `fee` the operator's fees",
    source: 'the payment',
  },
  refund: {
    records: "a refund, out of the primary merchant's balance (the fees are kept)",
    source: 'the refund record',
  },
  void: {
    records: "a void: the capture's rows negated, fees (a negative `fee`) and split share included",
    source: 'the void record',
  },
  split: { records: "a first split's share, for the split merchant", source: 'the payment' },
  split_refund: { records: "a split refund, out of the split merchant's balance", source: 'the split-refund record' },
  second_split: {
    records: 'a second split: out of the primary merchant, into the other merchant (one row each)',
    source: 'the second-split record',
  },
  ach_return: {
    records: "an ACH debit the bank returned at settlement: the capture's rows negated, fees included",
    source: 'the payment',
  },
  payout: {
    records: "a payout's deposit reached the merchant's bank: the money leaves `inTransit` (negative)",
    source: 'the payout',
  },
  payout_failure: {
    records:
      "the bank returned a payout: the money is back in `available` (a returned negative balance's debit: out of it again)",
    source: 'the payout',
  },
  dispute: {
    records:
      'a chargeback: the disputed amount and the dispute fee out of `available` (`amount` −disputed, `fee` the dispute fee)',
    source: 'the dispute',
  },
  dispute_reversal: {
    records: 'a won chargeback: the disputed amount back in `available` (the fee is kept)',
    source: 'the dispute',
  },
  negative_balance_debit: {
    records: "the debit of the merchant's bank for a negative balance reached the platform: the money in (positive)",
    source: 'the payout (`method` `negative_balance_debit`)',
  },
};
