import { type ServiceContext, wallClockNow } from '@pps/shared/http';
import type { AchDebitRequest, CardAuthorizationRequest, Processor, ProcessorAnswer } from '../../processor/processor';
import type { ClaimResult, Claims, KeyClaim } from '../idempotency/claims';
import type { NewPayment } from '../model/payments.repository';
import { type OutcomeRecorder, processingRecord } from './record-outcomes';
import type { Phased } from './run-in-phases';

/**
 * The phases of a new payment once its checks have passed (docs/design.md, Idempotency and concurrency), each a
 * named step: `runInPhases` runs them in order, `beginCharge` and `beginAchDebit` choose phase 2.
 */
export type PhaseDeps = { processor: Processor; claims: Claims<NewPayment>; outcomes: OutcomeRecorder };

/**
 * Phase 1, committed with concurrent payments' claims: the key claimed naming the payment (so recovery finds its
 * way back), and the record claimed `processing` (`payment_claims`); or the key's holder.
 */
export const claimNewPayment = (
  deps: PhaseDeps,
  ctx: ServiceContext,
  payment: NewPayment,
  key: KeyClaim | undefined,
): Promise<ClaimResult> =>
  deps.claims.submit({ key, recordId: payment.id, record: processingRecord(payment, wallClockNow(ctx)) });

/**
 * Phase 2 of a card payment: the processor authorises, with no transaction open and no connection held. Its outcome
 * is on its way meanwhile: an outcome batch with room waits for it (`expecting`).
 */
export const authorizeCard = (deps: PhaseDeps, request: CardAuthorizationRequest): Promise<ProcessorAnswer> =>
  deps.outcomes.expecting(async () => ({ rail: 'card', authorization: await deps.processor.authorizeCard(request) }));

/**
 * Phase 2 of a card payment sent with `authentication` (docs/api.md, 3-D Secure): the issuer's directory is asked
 * first. A challenge authorizes nothing yet: the answer says so, and phase 3 records the payment `requires_action`.
 * Frictionless, the card is authorized as authenticated; not enrolled, it is authorized as it would be without.
 */
export const authenticateAndAuthorize = (
  deps: PhaseDeps,
  request: CardAuthorizationRequest,
  mode: 'automatic' | 'challenge',
): Promise<ProcessorAnswer> =>
  deps.outcomes.expecting(async () => {
    const authentication = await deps.processor.authenticateCard({
      paymentId: request.paymentId,
      card: { number: request.card.number },
      mode,
    });
    if (authentication.flow === 'challenge') return { rail: 'card', challenge: true };
    const authenticated = authentication.flow === 'frictionless' ? { eci: authentication.eci } : undefined;
    const authorization = await deps.processor.authorizeCard({ ...request, authenticated });
    return { rail: 'card', authorization, authentication };
  });

/** Phase 2 of an ACH debit: the processor accepts or refuses the debit, as `authorizeCard` asks for a card. */
export const debitAch = (deps: PhaseDeps, request: AchDebitRequest): Promise<ProcessorAnswer> =>
  deps.outcomes.expecting(async () => ({ rail: 'ach', outcome: await deps.processor.debitAch(request) }));

/**
 * Phase 3, committed with concurrent payments' outcomes (`recordOutcomes`): the record's claim taken, the record
 * inserted with its outcome, and the answer stored on the key. Recorded as of its creation (`now`): the processor
 * call is part of making it, so the record reads as made at once.
 */
export const recordNewPayment = (deps: PhaseDeps, payment: NewPayment, answer: ProcessorAnswer, now: Date) =>
  deps.outcomes.submit({ claimed: payment, answer, now });

/** A checked and priced payment's three phases, as `runInPhases` runs them; `call` is its phase 2. */
export function phasesOf(
  deps: PhaseDeps,
  ctx: ServiceContext,
  payment: NewPayment,
  now: Date,
  call: () => Promise<ProcessorAnswer>,
): Phased<ProcessorAnswer> {
  return {
    paymentId: payment.id,
    claim: (key) => claimNewPayment(deps, ctx, payment, key),
    call,
    record: (answer) => recordNewPayment(deps, payment, answer, now),
  };
}
