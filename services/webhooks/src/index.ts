// What other processes, the payments service and the tests use of the webhooks package (import from `@pps/webhooks`):
// its HTTP API (`/webhooks*`, `/events*`, served by the payments service's process), the deliveries' reads, and the
// event pipeline's workers.

export { registerEventRoutes } from './api/events.routes';
export { registerWebhookRoutes } from './api/webhooks.routes';
export * from './delivery/deliveries.repository';
export { type DeliveryJobDeps, deliveryJobDeps } from './delivery/delivery-deps';
export { newWebhookSecret } from './delivery/secrets';
export type { WebhooksDeps } from './deps';
export { startWebhooks } from './workers';
