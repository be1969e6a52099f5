import { ApiError } from '@pps/shared/http';

export const webhookPointers = {
  url: '/data/attributes/url',
  endpointId: '/data/attributes/endpointId',
  since: '/data/attributes/since',
} as const;

export const webhookErrors = {
  disabled: (id: string, pointer?: string) =>
    new ApiError({
      status: 422,
      code: 'webhook_disabled',
      detail: `Webhook endpoint ${id} is disabled; enable it (PUT enabled: true) before sending to it`,
      pointer,
    }),
  /** In production: the URL's host resolves to a private, link-local or loopback address, or not at all. */
  unsafeTarget: (problem: string) =>
    new ApiError({ status: 400, code: 'invalid_webhook_url', detail: problem, pointer: webhookPointers.url }),
};
