// One drizzle schema for the one database. One file per table (or tightly bound pair).
export * from './accounts';
export * from './apps';
export * from './checkout';
export type { BillingAddress } from './columns';
export * from './console-sessions';
export * from './counts';
export * from './customers';
export * from './disputes';
export * from './events';
export * from './idempotency';
export * from './ledger';
export * from './merchants';
export * from './payments';
export * from './payouts';
export * from './request-log';
export * from './settlement';
export * from './tokens';
export * from './webhooks';
