// What other services use of the payments service (import from here).

export { deleteExpiredIdempotencyKeys } from './idempotency/idempotency.repository';
export { paymentResource } from './payments/payments.presenter';
export { findChildren, type Payment, type PaymentChild } from './payments/payments.repository';
export { type AchReturn, type Processor, SandboxProcessor } from './sandbox/processor';
export { createTokenCipher as createDataCipher } from './tokens/tokens.repository';
