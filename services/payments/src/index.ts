// What other services use of the payments service (import from `@pps/payments`); the HTTP app is `@pps/payments/app`.

export { type DisputeRunResult, runDisputes } from './disputes/run/dispute-run';
export { recoverAuthenticated } from './payments/authenticate/recover-authenticated';
export { deleteExpiredIdempotencyKeys } from './payments/idempotency/idempotency.repository';
export { paymentResource } from './payments/model/payments.presenter';
export { findChildren, type Payment, type PaymentChild } from './payments/model/payments.repository';
export { type RecoveryDeps, recoverPayments } from './payments/new/recover-payments';
export {
  type RecordSettled,
  runSettlement,
  type SettledRecord,
  type SettleResult,
} from './payments/settle/settle-run';
export { listPayouts } from './payouts/api/payouts.usecases';
export { runPayouts } from './payouts/run/payout-run';
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
export { createDataCipher } from './tokens/tokens.repository';
