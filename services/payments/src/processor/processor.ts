import type { schema } from '@pps/shared/db';
import type { DisputePhase, DisputeReason } from '@pps/shared/states';

/*
 * The contract between payments (and settlement) and whoever authorises cards and originates ACH: the built-in
 * sandbox (`sandbox/sandbox-processor.ts`) or a real acquirer's connector. Kept apart from the sandbox so a
 * connector, and the services that call one, depend on the contract only.
 */

/** A payout's credit the merchant's bank returned: its NACHA return reason code and message. */
export type PayoutReturn = { code: string; message: string };

/** A deposit the bank returned, as a return entry names it: by the original entry's trace number. */
export type ReturnedCredit = PayoutReturn & { traceNumber: string };

export type AvsResult = 'Y' | 'Z' | 'A' | 'N' | 'U';

export type CardAuthorizationRequest = {
  /** The payment this authorises: the processor remembers its answer by it (`lookup`). */
  paymentId: string;
  card: { number: string; expiry: string /* MMYY */; holder: string };
  /** Integer cents. */
  amount: number;
  billingAddress: schema.BillingAddress | null;
  now: Date;
  /**
   * The cardholder's 3-D Secure authentication, when the payment asked for it and the issuer authenticated them
   * (frictionless, or a completed challenge): an issuer that requires authentication declines without it.
   */
  authenticated?: { eci: string };
};

/** A card's 3-D Secure authentication, asked of the issuer's directory before authorizing (docs/api.md). */
export type AuthenticationRequest = {
  paymentId: string;
  card: { number: string };
  /** `automatic`: frictionless when the issuer allows; `challenge`: always challenge an enrolled card. */
  mode: 'automatic' | 'challenge';
};

/**
 * The issuer's answer: the cardholder must answer a challenge first; authenticated with no page (`frictionless`,
 * with the ECI to authorize with); or the card is not enrolled, and the payment goes on without authentication.
 */
export type AuthenticationDecision =
  | { flow: 'challenge' }
  | { flow: 'frictionless'; eci: string }
  | { flow: 'not_enrolled' };

/** The ECI of a payment its cardholder authenticated on a challenge (Visa's, as the sandbox answers). */
export const CHALLENGE_ECI = '05';

export type CardAuthorization = {
  approved: boolean;
  /** '00' approved; '05', '14', '51', '54', '96' declines. */
  code: string;
  message: string;
  /** Six uppercase letters and digits when approved, null when declined. */
  authCode: string | null;
  avsResult: AvsResult;
  brand: string;
  last4: string;
};

export type AchDebitRequest = {
  /** The payment this debits: the processor remembers its answer by it (`lookup`). */
  paymentId: string;
  /** The clear account and routing numbers: never logged, never put in a job payload. */
  accountNumber: string;
  routingNumber: string;
  /** Integer cents. */
  amount: number;
};

export type AchOutcome = { accepted: boolean; code: string; message: string };

/**
 * What the processor answered about a payment, asked again by the payment's id: a card's authorization (with its
 * 3-D Secure authentication when it was asked for: `authentication`), a card whose cardholder must answer a
 * challenge before anything is authorized, or an ACH debit's acceptance.
 */
export type ProcessorAnswer =
  | { rail: 'card'; authorization: CardAuthorization; authentication?: AuthenticationDecision }
  | { rail: 'card'; challenge: true }
  | { rail: 'ach'; outcome: AchOutcome };

/** The ACH return an entry gets when it settles (NACHA return reason codes). */
export type AchReturn = { code: 'R01' | 'R02' | 'R03' | 'R04'; message: string };

/** A dispute as the card network reports it: once per network dispute (`networkId`), about one of our payments. */
export type NetworkDispute = {
  networkId: string;
  paymentId: string;
  /** Integer cents: what the cardholder disputes (at most what is left of the payment after refunds). */
  amount: number;
  currency: string;
  reason: DisputeReason;
  networkReasonCode: string;
  phase: DisputePhase;
  openedAt: Date;
  /** Evidence is taken until then. */
  dueBy: Date;
};

/** The bank's answer to a dispute's evidence, and when it gives it. */
export type DisputeDecision = { outcome: 'won' | 'lost'; decidedAt: Date };

/** A card network and ACH operator; the sandbox stands in for one unless a real connector is passed. */
export interface Processor {
  authorizeCard(request: CardAuthorizationRequest): Promise<CardAuthorization>;
  /**
   * 3-D Secure: whether the card's issuer authenticates its cardholder with a challenge, with none (frictionless),
   * or not at all (not enrolled). A challenge is remembered as the payment's answer (`lookup`) until it is authorized.
   */
  authenticateCard(request: AuthenticationRequest): Promise<AuthenticationDecision>;
  /** Accepts an ACH debit for origination, or refuses it at once (e.g. a known insufficient-funds account). */
  debitAch(request: AchDebitRequest): Promise<AchOutcome>;
  /**
   * What it answered about this payment (`authorizeCard` or `debitAch` with its id), or null when it never got the
   * request: how recovery resolves a payment a crash left between the call and the record of its outcome.
   */
  lookup(paymentId: string): Promise<ProcessorAnswer | null>;
  /** Whether the receiving bank returns the entry when it settles; null when it settles. */
  achReturnAtSettlement(entry: { amount: number }): AchReturn | null;
  /**
   * Whether the merchant's bank returns a payout's credit, asked on its arrival date: null when the deposit
   * arrived, else the return's NACHA code and message. The clear account number: never logged.
   */
  payoutReturns(credits: { traceNumber: string; accountNumber: string }[]): ReturnedCredit[];
  /**
   * The disputes the network has opened by `now` (for one account, or every one), reported again until they are
   * stored: the dispute run stores each once, by its `networkId`.
   */
  disputes(query: { accountId?: string; now: Date }): Promise<NetworkDispute[]>;
  /** Sends a dispute's evidence to the bank; its answer comes back on `decidedAt`. */
  submitDisputeEvidence(input: {
    networkId: string;
    evidence: schema.DisputeEvidence;
    submittedAt: Date;
  }): Promise<DisputeDecision>;
}
