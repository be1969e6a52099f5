// @pps/sdk: the typed client of the Payment Processing Service (README.md).

export { API_VERSION, type Client, type ClientOptions, createClient, type PaymentBody } from './client.js';
export { PpsError } from './errors.js';
export type { components, operations, paths } from './schema.js';
export { verifyWebhook, type WebhookEvent, WebhookVerificationError } from './webhooks.js';
