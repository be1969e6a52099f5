import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db, schema } from '@pps/shared/db';
import type {
  AchDebitRequest,
  AchOutcome,
  AchReturn,
  AuthenticationDecision,
  AuthenticationRequest,
  AvsResult,
  CardAuthorization,
  CardAuthorizationRequest,
  DisputeDecision,
  NetworkDispute,
  PayoutReturn,
  Processor,
  ProcessorAnswer,
  ReturnedCredit,
} from '../processor/processor';
import { cardBrandOf, isCardExpired, luhnValid, normalizeCardNumber } from '../tokens/card';
import type { BillingAddress } from '../tokens/tokens.repository';
import { SandboxDisputes } from './sandbox-disputes';

/** The sandbox account whose debits are refused at creation for insufficient funds (docs/design.md). */
export const SANDBOX_ACH_INSUFFICIENT_FUNDS_ACCOUNT = '9876543';

/** ACH returns at settlement, chosen by amount in cents (docs/design.md). */
export const SANDBOX_ACH_RETURNS: Readonly<Record<number, AchReturn>> = {
  5501: { code: 'R01', message: 'Insufficient funds' },
  5502: { code: 'R02', message: 'Account closed' },
  5503: { code: 'R03', message: 'No account/unable to locate account' },
  5504: { code: 'R04', message: 'Invalid account number structure' },
};

/** Payout credits the merchant's bank returns, by bank account number (docs/design.md); any other is paid. */
export const SANDBOX_PAYOUT_RETURNS: Readonly<Record<string, PayoutReturn>> = {
  '000000005501': { code: 'R01', message: 'Insufficient funds' },
  '000000005503': { code: 'R03', message: 'No account/unable to locate account' },
};

type Decline = { code: string; message: string };

export const APPROVED = { code: '00', message: 'Approved' } as const;

/** Issuer declines by card number (docs/design.md). */
export const SANDBOX_DECLINES: Readonly<Record<string, Decline>> = {
  '4000000000000002': { code: '05', message: 'Do not honor' },
  '4000000000009995': { code: '51', message: 'Insufficient funds' },
  '4000000000000069': { code: '54', message: 'Expired card' },
  '4000000000000119': { code: '96', message: 'Processing error' },
};

/**
 * The 3-D Secure cards (docs/api.md, 3-D Secure): how the issuer authenticates each, and whether it requires it (a
 * payment without `authentication` is declined `authentication_required`). Every other card is not enrolled; the
 * fraudulent-chargeback card is enrolled frictionless, so an authenticated payment of it shows the liability shift.
 */
export const SANDBOX_3DS_CARDS: Readonly<Record<string, { flow: 'challenge' | 'frictionless'; required: boolean }>> = {
  '4000002760003184': { flow: 'challenge', required: true },
  '4000008400001629': { flow: 'challenge', required: true },
  '4000000000003055': { flow: 'frictionless', required: false },
  '4000000000000259': { flow: 'frictionless', required: false },
};
/** The card whose challenge completes and whose authorization is then declined (insufficient funds). */
export const SANDBOX_3DS_DECLINED_AFTER_CHALLENGE = '4000008400001629';
/** The ECI of a frictionless authentication. */
export const FRICTIONLESS_ECI = '05';

const AUTHENTICATION_REQUIRED: Decline = {
  code: 'authentication_required',
  message: 'The issuer requires the cardholder to authenticate (3-D Secure)',
};

/** Approved cards whose AVS result is fixed whatever the address (docs/design.md). */
export const SANDBOX_AVS_RESULTS: Readonly<Record<string, AvsResult>> = {
  '4000000000000010': 'N',
  '4000000000000028': 'Z',
  '4000000000000036': 'A',
  '4000000000000044': 'U',
};

const EXPIRED: Decline = { code: '54', message: 'Expired card' };
const INSUFFICIENT_FUNDS: Decline = { code: '51', message: 'Insufficient funds' };
const INVALID_NUMBER: Decline = { code: '14', message: 'Invalid card number' };

const given = (value: string | undefined) => value !== undefined && value.trim() !== '';

/** The AVS result of an ordinary approved card: Y with line1 and zip, Z with zip only, U without a zip. */
export function avsFromAddress(address: BillingAddress | null): AvsResult {
  if (!address || !given(address.zip)) return 'U';
  return given(address.line1) ? 'Y' : 'Z';
}

const AUTH_CODE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** Six random uppercase letters and digits. */
export function newAuthCode(): string {
  let code = '';
  for (let i = 0; i < 6; i++) code += AUTH_CODE_ALPHABET[randomInt(AUTH_CODE_ALPHABET.length)];
  return code;
}

/** How many answers the sandbox remembers; the oldest are forgotten first (recovery asks within minutes). */
const REMEMBERED = 100_000;

/**
 * The built-in sandbox: decides by card number as docs/design.md's table says. The expiry is checked first (by
 * `now`), then the issuer's table; every other Luhn-valid card is approved. Declines carry AVS `U`: the
 * issuer stopped before verifying the address. Amounts never change the outcome.
 *
 * Every card or ACH answer waits `latencyMs` (SANDBOX_LATENCY_MS; a timer, the event loop is free meanwhile), and is
 * remembered by payment id for `lookup`, in this process's memory: another process's sandbox (settlement's
 * recovery) knows none of them, and a restart forgets them. A real acquirer answers `lookup` from its own records.
 * Its disputes (`sandbox-disputes.ts`) are kept in the database it is given, so every process's sandbox sees them;
 * without one it opens none.
 */
export class SandboxProcessor implements Processor {
  private readonly latencyMs: number;
  private readonly answers = new Map<string, ProcessorAnswer>();
  private readonly network: SandboxDisputes;

  constructor(options: { latencyMs?: number; db?: Db } = {}) {
    this.latencyMs = options.latencyMs ?? 0;
    this.network = new SandboxDisputes(options.db);
  }

  async authorizeCard(request: CardAuthorizationRequest): Promise<CardAuthorization> {
    const authorization = this.decideCard(request);
    if (authorization.approved) {
      // Liability shift: the network opens no fraudulent dispute on a payment its cardholder authenticated.
      await this.network.noteApproval(request.paymentId, normalizeCardNumber(request.card.number), request.now, {
        authenticated: request.authenticated !== undefined,
      });
    }
    await this.answer(request.paymentId, { rail: 'card', authorization });
    return authorization;
  }

  /** By `SANDBOX_3DS_CARDS`: a challenge is remembered as the payment's answer until the payment is authorized. */
  async authenticateCard(request: AuthenticationRequest): Promise<AuthenticationDecision> {
    const card = SANDBOX_3DS_CARDS[normalizeCardNumber(request.card.number)];
    if (!card) return { flow: 'not_enrolled' };
    if (card.flow === 'challenge' || request.mode === 'challenge') {
      await this.answer(request.paymentId, { rail: 'card', challenge: true });
      return { flow: 'challenge' };
    }
    return { flow: 'frictionless', eci: FRICTIONLESS_ECI };
  }

  disputes(query: { accountId?: string; now: Date }): Promise<NetworkDispute[]> {
    return this.network.report(query);
  }

  async submitDisputeEvidence(input: {
    networkId: string;
    evidence: schema.DisputeEvidence;
    submittedAt: Date;
  }): Promise<DisputeDecision> {
    return this.network.decide(input);
  }

  async debitAch(request: AchDebitRequest): Promise<AchOutcome> {
    const outcome = this.decideAch(request);
    await this.answer(request.paymentId, { rail: 'ach', outcome });
    return outcome;
  }

  async lookup(paymentId: string): Promise<ProcessorAnswer | null> {
    return this.answers.get(paymentId) ?? null;
  }

  /** Remembers the answer (as given, before the wait: the network decided), then waits the configured latency. */
  private async answer(paymentId: string, answer: ProcessorAnswer) {
    this.answers.set(paymentId, answer);
    if (this.answers.size > REMEMBERED) {
      const oldest = this.answers.keys().next().value;
      if (oldest !== undefined) this.answers.delete(oldest);
    }
    if (this.latencyMs > 0) await sleep(this.latencyMs);
  }

  private decideCard(request: CardAuthorizationRequest): CardAuthorization {
    if (!Number.isSafeInteger(request.amount) || request.amount <= 0) {
      throw new RangeError('amount must be positive integer cents');
    }
    const number = normalizeCardNumber(request.card.number);
    const identity = { brand: cardBrandOf(number), last4: number.slice(-4) };
    const decline = (reason: Decline): CardAuthorization => ({
      approved: false,
      ...reason,
      authCode: null,
      avsResult: 'U',
      ...identity,
    });

    if (!/^\d{12,19}$/.test(number) || !luhnValid(number)) return decline(INVALID_NUMBER);
    if (isCardExpired(request.card.expiry, request.now)) return decline(EXPIRED);
    const issuerDecline = SANDBOX_DECLINES[number];
    if (issuerDecline) return decline(issuerDecline);
    if (SANDBOX_3DS_CARDS[number]?.required && !request.authenticated) return decline(AUTHENTICATION_REQUIRED);
    if (number === SANDBOX_3DS_DECLINED_AFTER_CHALLENGE) return decline(INSUFFICIENT_FUNDS);

    return {
      approved: true,
      ...APPROVED,
      authCode: newAuthCode(),
      avsResult: SANDBOX_AVS_RESULTS[number] ?? avsFromAddress(request.billingAddress),
      ...identity,
    };
  }

  private decideAch(request: AchDebitRequest): AchOutcome {
    if (!Number.isSafeInteger(request.amount) || request.amount <= 0) {
      throw new RangeError('amount must be positive integer cents');
    }
    if (request.accountNumber === SANDBOX_ACH_INSUFFICIENT_FUNDS_ACCOUNT) {
      return { accepted: false, code: 'R01', message: 'Insufficient funds' };
    }
    return { accepted: true, code: '0', message: 'Accepted' };
  }

  achReturnAtSettlement(entry: { amount: number }): AchReturn | null {
    return SANDBOX_ACH_RETURNS[entry.amount] ?? null;
  }

  /** Returns each credit to an account of SANDBOX_PAYOUT_RETURNS, naming the entry by its trace number. */
  payoutReturns(credits: { traceNumber: string; accountNumber: string }[]): ReturnedCredit[] {
    return credits.flatMap(({ traceNumber, accountNumber }) => {
      const returned = SANDBOX_PAYOUT_RETURNS[accountNumber];
      return returned ? [{ traceNumber, ...returned }] : [];
    });
  }
}
