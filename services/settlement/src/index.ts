// What the one-process start and the tests use of the settlement service (import from `@pps/settlement`).

export type { SettlementDeps } from './deps';
export { runSettlementPass } from './settlement/pass';
export { startSettlement } from './workers';
