// What the one-process start and the tests use of the settlement service (import from `@pps/settlement`).

export { runSettlementPass } from './settlement/pass';
export { type SettlementDeps, startSettlement } from './workers';
