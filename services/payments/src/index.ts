// What other services use of the payments service (import from `@pps/payments`); the HTTP app is `@pps/payments/app`.

export { deleteExpiredIdempotencyKeys } from './idempotency/idempotency.repository';
export { paymentResource } from './payments/payments.presenter';
export { findChildren, type Payment, type PaymentChild } from './payments/payments.repository';
export { type RecoveryDeps, recoverPayments } from './payments/recover-payments';
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
