// What other services use of the payments service (import from `@pps/payments`); the HTTP app is `@pps/payments/app`.

export { type DisputeRunResult, runDisputes } from './dispute-run/dispute-run';
export { deleteExpiredIdempotencyKeys } from './idempotency/idempotency.repository';
export { type RecoveryDeps, recoverPayments } from './new-payments/recover-payments';
export { lapseAuthorizations, settlePayments, transitionPayment } from './payment-model/payment-transition';
export { paymentResource } from './payment-model/payments.presenter';
export { findChildren, type Payment, type PaymentChild } from './payment-model/payments.repository';
export { runPayouts } from './payout-run/payout-run';
export { listPayouts } from './payouts/payouts.usecases';
export type {
  AchDebitRequest,
  AchOutcome,
  AchReturn,
  AvsResult,
  CardAuthorization,
  CardAuthorizationRequest,
  PayoutReturn,
  Processor,
  ProcessorAnswer,
  ReturnedCredit,
} from './processor/processor';
export { SandboxProcessor } from './sandbox/sandbox-processor';
export { createTokenCipher as createDataCipher } from './tokens/tokens.repository';
