import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { components } from './schema.js';

export { WebhookVerificationError };

/** Every event type an endpoint can subscribe to (the API's list, less `*`). */
export type EventType = Exclude<
  components['schemas']['WebhookCreateRequest']['data']['attributes']['events'][number],
  '*'
>;

type Resource =
  | components['schemas']['Payment']
  | components['schemas']['Merchant']
  | components['schemas']['Payout']
  | components['schemas']['WebhookEndpoint'];

/**
 * A webhook's body: its type, when it happened, and the resource as `GET` shows it then, with the status it left
 * (`previousStatus`) and its place among the resource's events (`sequence`).
 */
export type WebhookEvent = {
  type: EventType;
  timestamp: string;
  data: Resource & { previousStatus: string | null; sequence: number };
};

/** A request's headers as Node (`IncomingMessage.headers`), the Fetch API (`Headers`) or a plain object give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * Checks a webhook's Standard Webhooks signature with the endpoint's secret (`whsec_…`; during a rotation either
 * secret signs) and its timestamp (at most five minutes off), and returns the event it carries. Throws
 * `WebhookVerificationError` for a missing header, a bad signature or an old timestamp. Pass the body exactly as
 * received (the raw text, not a re-serialised object).
 */
export function verifyWebhook(body: string | Uint8Array, headers: WebhookHeaders, secret: string): WebhookEvent {
  const header = (name: string) => {
    const value = headers instanceof Headers ? headers.get(name) : headers[name];
    return Array.isArray(value) ? value.join(' ') : (value ?? '');
  };
  return new Webhook(secret).verify(typeof body === 'string' ? body : new TextDecoder().decode(body), {
    'webhook-id': header('webhook-id'),
    'webhook-timestamp': header('webhook-timestamp'),
    'webhook-signature': header('webhook-signature'),
  }) as WebhookEvent;
}
