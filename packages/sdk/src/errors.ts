import type { components } from './schema.js';

type ErrorDocument = components['schemas']['ErrorDocument'];

/**
 * Every refusal the API answers, as one error: the HTTP status, the stable `code` (e.g. `card_declined`), `title`,
 * `detail`, the JSON pointer of the field at fault (`pointer`) or the query parameter (`parameter`), the request's
 * id (quote it to support), and the error document's `meta` (e.g. `paymentId` of a declined payment). Also thrown,
 * with status 0 and code `network_error`, when no answer came at all.
 */
export class PpsError extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  readonly pointer: string | undefined;
  readonly parameter: string | undefined;
  readonly requestId: string | undefined;
  /** Every error of the answer (a validation failure lists each invalid field), the first one above. */
  readonly errors: ErrorDocument['errors'];
  readonly meta: ErrorDocument['meta'] | undefined;
  /** `Retry-After` of the answer, in milliseconds, when it gave one. */
  readonly retryAfterMs: number | undefined;

  constructor(input: {
    status: number;
    errors: ErrorDocument['errors'];
    meta?: ErrorDocument['meta'];
    requestId?: string;
    retryAfterMs?: number;
    cause?: unknown;
  }) {
    const first = input.errors[0];
    super(first ? `${first.code}: ${first.detail}` : `HTTP ${input.status}`, { cause: input.cause });
    this.name = 'PpsError';
    this.status = input.status;
    this.code = first?.code ?? 'unknown_error';
    this.title = first?.title ?? '';
    this.detail = first?.detail ?? '';
    this.pointer = first?.source && 'pointer' in first.source ? first.source.pointer : undefined;
    this.parameter = first?.source && 'parameter' in first.source ? first.source.parameter : undefined;
    this.requestId = input.meta?.requestId ?? input.requestId;
    this.errors = input.errors;
    this.meta = input.meta;
    this.retryAfterMs = input.retryAfterMs;
  }

  /** The error an answer that is not a 2xx stands for, read from its JSON:API error document. */
  static async fromResponse(response: Response): Promise<PpsError> {
    const text = await response.text().catch(() => '');
    let document: Partial<ErrorDocument> = {};
    try {
      document = JSON.parse(text) as Partial<ErrorDocument>;
    } catch {
      // Not JSON (a proxy's page): the status says what there is to say.
    }
    return new PpsError({
      status: response.status,
      errors: Array.isArray(document.errors)
        ? document.errors
        : [
            {
              status: String(response.status),
              code: 'unexpected_response',
              title: response.statusText,
              detail: text.slice(0, 300),
            },
          ],
      meta: document.meta,
      requestId: response.headers.get('x-request-id') ?? undefined,
      retryAfterMs: retryAfterMs(response.headers.get('retry-after')),
    });
  }

  /** No answer: the connection failed or was dropped. */
  static network(cause: unknown): PpsError {
    const detail = cause instanceof Error ? cause.message : String(cause);
    return new PpsError({
      status: 0,
      errors: [{ status: '0', code: 'network_error', title: 'Network error', detail }],
      cause,
    });
  }
}

/** `Retry-After` as seconds or an HTTP date, in milliseconds. */
export function retryAfterMs(value: string | null): number | undefined {
  if (!value) return undefined;
  const ms = /^\d+$/.test(value.trim()) ? Number(value.trim()) * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) ? Math.max(0, ms) : undefined;
}
