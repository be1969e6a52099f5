// What other processes, the payments service and the tests use of the event pipeline (import from `@pps/webhooks`).

export * from './deliveries/deliveries.repository';
export type { WebhooksDeps } from './deps';
export { startWebhooks } from './workers';
