import { settleAtFor } from '@pps/shared/clock';
import type { Config } from '@pps/shared/config';
import {
  Batcher,
  type BatcherOptions,
  type Db,
  type Part,
  pipelinedTransaction,
  type schema,
  sendTogether,
  type Tx,
} from '@pps/shared/db';
import { firstEventsParts, type WriteEventInput } from '@pps/shared/events';
import { type PostInput, postingsPart } from '@pps/shared/ledger';
import type { Logger } from '@pps/shared/logger';
import { assertStoredTransition, PROCESSING } from '@pps/shared/states';
import { avsAccepted } from '../../processor/avs-policy';
import type { AuthenticationDecision, ProcessorAnswer } from '../../processor/processor';
import { answersInFlightPart, type StoredResponse } from '../idempotency/idempotency.repository';
import { capturePosting } from '../model/capture-posting';
import {
  challengesInsertPart,
  challengeUrl,
  type NewChallenge,
  newChallenge,
  THREE_DS_VERSION,
} from '../model/challenges';
import { errorDocumentBody, type FailedTransaction, paymentErrors } from '../model/payments.errors';
import { paymentDocument, paymentResource } from '../model/payments.presenter';
import {
  findMerchants,
  lockClaims,
  type MerchantForPayment,
  type NewPayment,
  type Payment,
  type PaymentOutcome,
  recordClaimsPart,
} from '../model/payments.repository';

/** The API's success code (the processor's own approval code is not shown). */
const APPROVED_CODE = '0';
/** How the payment record reads when the issuer approved but the merchant's AVS policy refuses the result. */
const AVS_REFUSED = { code: 'AVS', message: 'Address verification failed' } as const;
/** How a record reads between its phases (served as `pending`, undecided). */
const AWAITING = { code: 'pending', message: 'Awaiting the processor' } as const;
/** How a record reads while its cardholder has its 3-D Secure challenge to answer. */
const AWAITING_CARDHOLDER = {
  code: 'requires_action',
  message: "Awaiting the cardholder's 3-D Secure authentication",
} as const;
/** A record recovery found `processing` and the processor knew nothing of: it was never charged. */
export const ABANDONED = {
  code: 'processing_abandoned',
  message: 'The processor has no answer for this payment; it was not made',
} as const;

/**
 * Phase 1 of a new card or ACH payment (docs/design.md, Idempotency and concurrency): its record, checked and priced,
 * to claim `processing` (`payment_claims`) with no outcome yet, no ledger posting and no event. `since` is real time
 * (recovery's clock).
 */
export function processingRecord(values: NewPayment, since: Date): NewPayment {
  return { ...values, ...AWAITING, status: PROCESSING, processingSince: since };
}

/** What recording an outcome needs besides the transaction: the service's config and log (no request context). */
export type OutcomeContext = { config: Config; log: Logger };

/** A new payment's outcome to record: its record, the processor's answer (null: none), and its sandbox time. */
export type OutcomeToRecord = {
  claimed: { id: string; merchantId: string };
  answer: ProcessorAnswer | null;
  now: Date;
};

/**
 * Phase 3 of new card and ACH payments, and the recovery job's way of finishing them: one function, so an outcome
 * is recorded alike whoever records it, for one payment or a group-committed batch (docs/design.md, The payment
 * write path). Locks the records' claims (in id order, with their merchants' AVS modes, in the same round trip) and
 * decides each claim still there from the processor's answer: approved, a `pending` payment, its capture posting and
 * `payment.created` (asked not to capture: `authorized` until CARD_AUTHORIZATION_DAYS out, no posting,
 * `payment.authorized`); declined or AVS-refused, `failed` and `payment.failed` answered 402/422 (returned, not thrown,
 * so it commits). No answer (`null`: the processor never got the request) fails it `processing_abandoned`.
 *
 * Returns each item's answer in order, undefined for a record whose claim is gone (recorded already, by the other
 * of the two), and the writes of them all, to send as one statement: one per table whatever the batch's size, the
 * records inserted into `payments` (once, with their outcomes, from their claims) and the refusals stored on their
 * keys among them.
 */
export async function recordOutcomes(
  ctx: OutcomeContext,
  tx: Tx,
  items: OutcomeToRecord[],
): Promise<{ answers: (StoredResponse | undefined)[]; writes: Part[] }> {
  const [claims, merchants] = await Promise.all([
    lockClaims(
      tx,
      items.map((item) => item.claimed.id),
    ),
    findMerchants(
      tx,
      items.map((item) => item.claimed.merchantId),
    ),
  ]);
  const open = new Map(
    claims.map((payment) => {
      if (payment.status !== PROCESSING) throw new Error(`payment ${payment.id}: claimed ${payment.status}`);
      return [payment.id, payment];
    }),
  );
  const outcomes: { id: string; outcome: PaymentOutcome }[] = [];
  const events: WriteEventInput[] = [];
  const captures: PostInput[] = [];
  const challenges: NewChallenge[] = [];
  const stored: { paymentId: string; response: StoredResponse }[] = [];
  const answers = items.map(({ claimed, answer, now }) => {
    const payment = open.get(claimed.id);
    if (!payment) return undefined;
    open.delete(claimed.id); // an id twice in a batch is recorded once
    const merchant = merchants.get(payment.merchantId);
    if (!merchant) throw new Error(`payment ${payment.id}: merchant ${payment.merchantId} not found`);
    const decided = outcomeOf(ctx.config, payment, merchant, answer, now);
    const { changes, resource, challenge } = decided;
    if (challenge) challenges.push(challenge);
    outcomes.push({ id: payment.id, outcome: changes });
    events.push({
      accountId: payment.accountId,
      type: decided.eventType,
      resource,
      previousStatus: null,
      requestId: payment.requestId,
    });
    if (decided.capture) captures.push(decided.capture);
    ctx.log.info(
      {
        paymentId: payment.id,
        merchantId: payment.merchantId,
        requestType: payment.requestType,
        status: changes.status,
      },
      LOG_LINES[decided.eventType],
    );
    const requestId = payment.requestId ?? '';
    const response = decided.error
      ? { status: decided.error.status, body: errorDocumentBody(decided.error, requestId) }
      : { status: 201, body: paymentDocument(ctx.config.PUBLIC_BASE_URL, resource) };
    // A refusal is stored on the key; an approval's 201 is this event's resource, written once (`answerOf`).
    if (decided.error) stored.push({ paymentId: payment.id, response });
    return response;
  });
  if (outcomes.length === 0) return { answers, writes: [] };
  const writes = [
    recordClaimsPart(outcomes),
    ...firstEventsParts(events),
    ...postingsPart(captures).parts,
    ...(stored.length > 0 ? [answersInFlightPart(stored)] : []),
    ...(challenges.length > 0 ? [challengesInsertPart(challenges)] : []),
  ];
  return { answers, writes };
}

const DAY_MS = 86_400_000;

type OutcomeEventType = 'payment.requires_action' | 'payment.created' | 'payment.authorized' | 'payment.failed';
const LOG_LINES: Record<OutcomeEventType, string> = {
  'payment.requires_action': 'payment requires action',
  'payment.created': 'payment accepted',
  'payment.authorized': 'payment authorized',
  'payment.failed': 'payment failed',
};

/**
 * What the processor's answer makes of a payment (phase 3 of a new one, recovery, or a completed 3-D Secure
 * challenge): its outcome columns, the record as they leave it and its resource, its event, its capture posting when
 * money moves, the challenge to open when its cardholder must answer one, and the refusal when it was refused.
 */
export function outcomeOf(
  config: Config,
  payment: Payment,
  merchant: MerchantForPayment,
  answer: ProcessorAnswer | null,
  now: Date,
) {
  const challenge = answer?.rail === 'card' && 'challenge' in answer ? newChallenge(config, payment) : undefined;
  const decided = challenge ? awaitChallenge(payment, challenge) : decide(payment, merchant, answer);
  const approved = !challenge && decided.error === undefined;
  // Asked to authorize only (`capture: false`): no money moves until a capture, so no settlement date yet.
  const captured = approved && payment.captureRequested !== false;
  const authorized = approved && !captured;
  const changes: PaymentOutcome = {
    threeDSecure: null,
    nextAction: null,
    ...decided.columns,
    status: challenge ? 'requires_action' : captured ? 'pending' : authorized ? 'authorized' : 'failed',
    settleAt: captured ? settleAtFor(payment.createdAt, settlementDays(config, payment)) : null,
    // From the authorization's own time (the account's clock when it was made), whoever records the outcome.
    authorizationExpiresAt: authorized
      ? new Date(payment.createdAt.getTime() + config.CARD_AUTHORIZATION_DAYS * DAY_MS)
      : null,
    failedAt: approved || challenge ? null : now,
    updatedAt: now,
  };
  assertStoredTransition(payment.status, changes.status);
  const recorded: Payment = { ...payment, ...changes, processingSince: null };
  const eventType: OutcomeEventType = challenge
    ? 'payment.requires_action'
    : captured
      ? 'payment.created'
      : authorized
        ? 'payment.authorized'
        : 'payment.failed';
  return {
    changes,
    recorded,
    resource: paymentResource(recorded, [], now),
    eventType,
    capture: captured ? capturePosting(payment, now, changes.settleAt ?? now) : undefined,
    challenge,
    error: decided.error,
  };
}

/** Phase 3 group-committed: concurrent payments' outcomes recorded by one transaction and one statement per table. */
export type OutcomeRecorder = Batcher<OutcomeToRecord, StoredResponse | undefined>;

export function outcomeRecorder(ctx: OutcomeContext & { db: Db }, options: BatcherOptions): OutcomeRecorder {
  return new Batcher(
    (items) =>
      pipelinedTransaction(ctx.db, async (tx) => {
        const { answers, writes } = await recordOutcomes(ctx, tx, items);
        return { result: answers, pending: writes.length > 0 ? [sendTogether(tx, writes)] : [] };
      }),
    options,
  );
}

const settlementDays = (config: Config, payment: Payment) =>
  payment.paymentType === 'ACH' ? config.ACH_SETTLEMENT_BUSINESS_DAYS : config.CARD_SETTLEMENT_BUSINESS_DAYS;

/** The outcome columns the processor's answer gives the record, and the error its client gets when it failed. */
function decide(payment: Payment, merchant: MerchantForPayment, answer: ProcessorAnswer | null) {
  if (!answer) {
    const failure: FailedTransaction = { ...ABANDONED, avsResult: null };
    return {
      columns: { ...ABANDONED, authCode: null, avsResult: null, card: payment.card },
      error: paymentErrors.processingAbandoned(payment.id, failure),
    };
  }
  if (answer.rail === 'ach') {
    if (payment.paymentType !== 'ACH') throw new Error(`payment ${payment.id}: an ACH answer for a card payment`);
    const { outcome } = answer;
    const columns = { code: outcome.code, message: outcome.message, authCode: null, avsResult: null, card: null };
    if (outcome.accepted) return { columns, error: undefined };
    const failure: FailedTransaction = { code: outcome.code, message: outcome.message, avsResult: null };
    return { columns, error: paymentErrors.achRefused(payment.id, failure) };
  }
  if (payment.paymentType !== 'card' || !payment.card || !('authorization' in answer)) {
    throw new Error(`payment ${payment.id}: a card answer for an ACH payment`);
  }
  const result = answer.authorization;
  const approved = result.approved && avsAccepted(result.avsResult, merchant.avsMode, payment.avsRequested ?? false);
  const outcome = approved
    ? { code: APPROVED_CODE, message: result.message }
    : result.approved
      ? AVS_REFUSED
      : { code: result.code, message: result.message };
  const columns = {
    ...outcome,
    authCode: approved ? result.authCode : null,
    avsResult: result.avsResult ?? null,
    card: { ...payment.card, brand: result.brand ?? payment.card.brand, last4: result.last4 ?? payment.card.last4 },
    threeDSecure: answer.authentication ? threeDSecureOf(answer.authentication) : payment.threeDSecure,
  };
  if (approved) return { columns, error: undefined };
  const failure: FailedTransaction = { ...outcome, avsResult: columns.avsResult };
  const error = result.approved
    ? paymentErrors.avsMismatch(payment.id, failure, merchant.avsMode)
    : paymentErrors.cardDeclined(payment.id, failure);
  return { columns, error };
}

/** A new payment's 3-D Secure as its authentication went, frictionless or not enrolled (a challenge waits). */
function threeDSecureOf(authentication: AuthenticationDecision): schema.ThreeDSecure {
  if (authentication.flow === 'frictionless') {
    return { flow: 'frictionless', result: 'authenticated', version: THREE_DS_VERSION, eci: authentication.eci };
  }
  return { flow: null, result: 'not_enrolled', version: THREE_DS_VERSION, eci: null };
}

/**
 * A card payment whose cardholder must answer a challenge: `requires_action`, nothing authorized and nothing posted,
 * its challenge page's link as `nextAction`, its 3-D Secure result still to come.
 */
function awaitChallenge(payment: Payment, challenge: NewChallenge) {
  return {
    columns: {
      ...AWAITING_CARDHOLDER,
      authCode: null,
      avsResult: null,
      card: payment.card,
      threeDSecure: {
        flow: 'challenge',
        result: null,
        version: THREE_DS_VERSION,
        eci: null,
      } satisfies schema.ThreeDSecure,
      nextAction: {
        type: 'redirect',
        url: challengeUrl(challenge.baseUrl, challenge.token),
      } satisfies schema.NextAction,
    },
    error: undefined,
  };
}
