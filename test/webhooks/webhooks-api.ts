import type { Credentials, TestStack } from '../harness';

// What the webhook API's test files (webhooks, webhook-actions, events) share: a few values, and the calls they
// make on their own stack.

export const base = 'http://localhost:8080';
export const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
export const UNKNOWN_WEBHOOK = 'whk_0000000000000000000000000a';
export const UNKNOWN_EVENT = 'evt_0000000000000000000000000a';
export const pointer = (path: string) => `/data/attributes/${path}`;
export const webhookBody = (attributes: Record<string, unknown>) => ({ data: { type: 'webhooks', attributes } });
/** No body, then an empty one declared with `Content-Length: 0`. */
export const emptyBodies: Record<string, string>[] = [{}, { 'content-length': '0' }];

/** The calls, on the stack `stack()` returns (a file's own, made in its `beforeAll`). */
export function webhookCalls(stack: () => TestStack) {
  const createWebhook = (as: Credentials, attributes: Record<string, unknown> = {}) =>
    stack().call('POST', '/webhooks', {
      as,
      body: webhookBody({ url: 'https://receiver.example.com/hooks', events: ['*'], ...attributes }),
    });

  /** Creates an endpoint and returns its id (throws with the body on failure). */
  async function webhookId(as: Credentials, attributes: Record<string, unknown> = {}): Promise<string> {
    const res = await createWebhook(as, attributes);
    if (res.status !== 201) throw new Error(`webhook creation failed: ${JSON.stringify(res.body)}`);
    return res.body.data.id;
  }

  const endpointRow = async (id: string) =>
    (await stack().sql`select * from webhook_endpoints where id = ${id}`)[0] as Record<string, any>;
  const deliveriesOf = (eventId: string) =>
    stack().sql`select * from webhook_deliveries where event_id = ${eventId} order by endpoint_id`;

  /** As README's clients call: the four headers, `Content-Type: application/json` included, and no body at all. */
  const bodiless = (path: string, as: Credentials, headers: Record<string, string> = {}, method = 'POST') =>
    stack().call(method, path, { as, headers: { 'content-type': 'application/json', ...headers } });

  return { createWebhook, webhookId, endpointRow, deliveriesOf, bodiless };
}
