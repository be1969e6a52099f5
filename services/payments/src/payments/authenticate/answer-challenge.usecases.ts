import type { FieldCipher } from '@pps/shared/crypto';
import { type DbOrTx, schema, withTransaction } from '@pps/shared/db';
import { writeEvent } from '@pps/shared/events';
import { ApiError, ownedBy, type ServiceContext, wallClockNow } from '@pps/shared/http';
import { isId } from '@pps/shared/ids';
import { post } from '@pps/shared/ledger';
import { PROCESSING } from '@pps/shared/states';
import { eq } from 'drizzle-orm';
import { CHALLENGE_ECI, type Processor } from '../../processor/processor';
import { loadCardsForCharge } from '../../tokens/tokens.repository';
import { THREE_DS_VERSION, takeChallenge } from '../model/challenges';
import { type TransitionColumns, transitionPayment } from '../model/payment-transition';
import { paymentResource } from '../model/payments.presenter';
import { findMerchants, findPayment, type Payment } from '../model/payments.repository';
import { outcomeOf } from '../new/record-outcomes';

const { payments } = schema;

export type ChallengeDeps = { processor: Processor; cipher: FieldCipher };
export type ChallengeOutcome = 'completed' | 'failed';

export const challengeErrors = {
  expired: () =>
    new ApiError({
      status: 410,
      code: 'challenge_expired',
      detail: 'This 3-D Secure challenge is over: its link works once, for 15 minutes (the payment shows how it ended)',
      pointer: '/data/attributes/token',
    }),
  notAwaiting: (status: string) =>
    new ApiError({
      status: 422,
      code: 'payment_not_awaiting_authentication',
      detail: `The payment is ${status}: only a payment that requires_action has a challenge to answer`,
    }),
};

/** How a payment reads once its cardholder failed the challenge, and once nobody answered it in time. */
const AUTHENTICATION_FAILED = { code: 'authentication_failed', message: 'The cardholder failed 3-D Secure' } as const;
const AUTHENTICATION_ABANDONED = {
  code: 'authentication_abandoned',
  message: 'Nobody answered the 3-D Secure challenge within 15 minutes',
} as const;

/**
 * A payment's 3-D Secure challenge answered (docs/design.md, 3-D Secure), what the hosted challenge page sends. The
 * challenge is taken by its token (deleted: the link works once) in the transaction that moves the payment, so two
 * answers of one link end it once. `failed`: the payment is `failed` (`authentication_failed`), with
 * `payment.failed`. `completed`: the payment is authorized as a new one is, in three phases, so no transaction
 * waits on the processor: (1) it goes `processing`, authenticated; (2) the processor authorizes it, with the
 * challenge's ECI; (3) its outcome is recorded as phase 3 records a new payment's (`outcomeOf`: `pending` with its
 * capture posting, `authorized`, or `failed` when the issuer declines), with its event. A crash between (1) and (3)
 * leaves it `processing`, which recovery finishes by the processor's answer (`recoverAuthenticated`). A link past
 * its 15 minutes (by the account's clock) ends the payment as the clock tick would, and answers 410.
 */
export async function answerChallenge({
  ctx,
  input,
  deps,
}: {
  ctx: ServiceContext;
  input: { id: string; token: string; outcome: ChallengeOutcome };
  deps: ChallengeDeps;
}): Promise<Payment> {
  const found = isId('payment', input.id) ? await findPayment(ctx.db, input.id) : undefined;
  const payment = ownedBy(found, ctx, 'payment', input.id);
  const now = ctx.clock.now();
  const answered = await withTransaction(ctx.db, async (tx): Promise<Answered> => {
    const challenge = await takeChallenge(tx, payment.id, input.token);
    const waiting = challenge && (await lockPayment(tx, payment.id));
    if (!challenge || waiting?.status !== 'requires_action') return { kind: 'none' };
    if (challenge.expiresAt <= now) return { kind: 'expired', payment: await abandon(tx, waiting, now) };
    if (input.outcome === 'failed') return { kind: 'failed', payment: await failAuthentication(tx, waiting, now) };
    const authenticated = await transitionPayment(tx, {
      payment: waiting,
      to: PROCESSING,
      at: now,
      set: {
        threeDSecure: { flow: 'challenge', result: 'authenticated', version: THREE_DS_VERSION, eci: CHALLENGE_ECI },
        nextAction: null,
        processingSince: wallClockNow(ctx),
      },
    });
    return { kind: 'authenticated', payment: authenticated };
  });
  if (answered.kind === 'failed') return answered.payment;
  if (answered.kind === 'authenticated') return authorizeAuthenticated(ctx.db, ctx.config, deps, answered.payment, now);
  // No challenge to answer: a link used or lapsed is 410; a payment that never had one is 422.
  if (
    answered.kind === 'expired' ||
    payment.status === 'requires_action' ||
    payment.threeDSecure?.flow === 'challenge'
  ) {
    throw challengeErrors.expired();
  }
  throw challengeErrors.notAwaiting(payment.status);
}

type Answered = { kind: 'none' } | { kind: 'expired' | 'failed' | 'authenticated'; payment: Payment };

/**
 * Phases 2 and 3 of an authenticated payment (`processing`): the processor authorizes it with the challenge's ECI,
 * then its outcome is recorded under its row lock, unless recovery recorded it meanwhile.
 */
export async function authorizeAuthenticated(
  db: DbOrTx,
  config: ServiceContext['config'],
  deps: ChallengeDeps,
  payment: Payment,
  now: Date,
): Promise<Payment> {
  const [card] = payment.tokenId
    ? await loadCardsForCharge(db, deps.cipher, [{ accountId: payment.accountId, tokenId: payment.tokenId }])
    : [];
  const authorization =
    card && payment.card
      ? await deps.processor.authorizeCard({
          paymentId: payment.id,
          card: { number: card.card.number, expiry: payment.card.expiry, holder: payment.card.holder },
          amount: payment.gross,
          billingAddress: payment.billingAddress,
          now,
          authenticated: { eci: payment.threeDSecure?.eci ?? CHALLENGE_ECI },
        })
      : undefined;
  return recordAuthorization(db, config, payment.id, authorization ? { rail: 'card', authorization } : null, now);
}

/**
 * Phase 3 of an authenticated payment: its outcome by the processor's answer (none: the vault's card is gone, or the
 * processor never got the request, and the payment fails `processing_abandoned`), recorded once, under its row lock.
 */
export async function recordAuthorization(
  db: DbOrTx,
  config: ServiceContext['config'],
  paymentId: string,
  answer: Parameters<typeof outcomeOf>[3],
  now: Date,
): Promise<Payment> {
  return withTransaction(db, async (tx) => {
    const payment = await lockPayment(tx, paymentId);
    if (!payment) throw new Error(`payment ${paymentId} is gone`);
    if (payment.status !== PROCESSING) return payment;
    const [merchant] = (await findMerchants(tx, [payment.merchantId])).values();
    if (!merchant) throw new Error(`payment ${payment.id}: merchant ${payment.merchantId} not found`);
    const decided = outcomeOf(config, payment, merchant, answer, now);
    const { status, ...set } = decided.changes;
    const recorded = await transitionPayment(tx, {
      payment,
      to: status,
      at: now,
      set: { ...set, threeDSecure: payment.threeDSecure, processingSince: null },
    });
    if (decided.capture) await post(tx, decided.capture);
    await writeEvent(tx, {
      accountId: payment.accountId,
      type: decided.eventType,
      resource: paymentResource(recorded, [], now),
      previousStatus: 'requires_action',
    });
    return recorded;
  });
}

/** The payment, locked until the transaction ends; undefined when there is none. */
async function lockPayment(tx: DbOrTx, id: string): Promise<Payment | undefined> {
  const [row] = await tx.select().from(payments).where(eq(payments.id, id)).for('update');
  return row;
}

/**
 * A challenge ended with nothing authorized: the payment moves out of `requires_action` to `to`, its link gone and
 * its 3-D Secure `result` recorded, with `event`. Nothing was posted, so nothing is undone.
 */
async function endUnauthorized(
  tx: DbOrTx,
  payment: Payment,
  now: Date,
  end: { to: 'failed' | 'voided'; result: 'failed' | 'abandoned'; set: TransitionColumns },
): Promise<Payment> {
  const ended = await transitionPayment(tx, {
    payment,
    to: end.to,
    at: now,
    set: {
      ...end.set,
      nextAction: null,
      threeDSecure: { flow: 'challenge', result: end.result, version: THREE_DS_VERSION, eci: null },
    },
  });
  await writeEvent(tx, {
    accountId: payment.accountId,
    type: end.to === 'failed' ? 'payment.failed' : 'payment.voided',
    resource: paymentResource(ended, [], now),
    previousStatus: 'requires_action',
  });
  return ended;
}

/** The cardholder failed the challenge: `failed`, `authentication_failed`, with `payment.failed`. */
const failAuthentication = (tx: DbOrTx, payment: Payment, now: Date) =>
  endUnauthorized(tx, payment, now, {
    to: 'failed',
    result: 'failed',
    set: { ...AUTHENTICATION_FAILED, failedAt: now },
  });

/**
 * Nobody answered the challenge in time: `voided`, `voidReason` `authentication_abandoned`, with `payment.voided`.
 * The clock tick's way (`abandonChallenges`), and a late answer's.
 */
export const abandon = (tx: DbOrTx, payment: Payment, now: Date) =>
  endUnauthorized(tx, payment, now, {
    to: 'voided',
    result: 'abandoned',
    set: { ...AUTHENTICATION_ABANDONED, voidedAt: now, voidReason: 'authentication_abandoned' },
  });
