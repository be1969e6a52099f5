/** The HTTP reason used as `title`, per the spec's error table. */
export const titles: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Failed',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

export type ErrorObject = {
  status: string;
  code: string;
  title: string;
  detail: string;
  source?: { pointer: string } | { parameter: string };
};

export type ApiErrorInit = {
  status: number;
  code: string;
  detail: string;
  pointer?: string;
  /** For a query-string parameter: JSON:API's `source.parameter` instead of a pointer. */
  parameter?: string;
  /** Extra members of the error document's `meta` (e.g. the failed payment's id). */
  meta?: Record<string, unknown>;
  headers?: Record<string, string>;
};

/** A failure the client should see, with its status, stable code and pointer. Mapped once by onError. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly pointer?: string;
  readonly parameter?: string;
  readonly meta?: Record<string, unknown>;
  readonly headers?: Record<string, string>;
  /** Several errors at once (a validation failure lists every field). */
  readonly others: ApiErrorInit[];

  constructor(init: ApiErrorInit, others: ApiErrorInit[] = []) {
    super(init.detail);
    this.name = 'ApiError';
    this.status = init.status;
    this.code = init.code;
    this.detail = init.detail;
    this.pointer = init.pointer;
    this.parameter = init.parameter;
    this.meta = init.meta;
    this.headers = init.headers;
    this.others = others;
  }

  static many(errors: ApiErrorInit[]): ApiError {
    const [first, ...rest] = errors;
    if (!first) throw new Error('ApiError.many needs at least one error');
    return new ApiError(first, rest);
  }

  toObjects(): ErrorObject[] {
    return [this as ApiErrorInit, ...this.others].map(toErrorObject);
  }
}

/** Long tokens in a detail (a 10,000-character id echoed back) are cut to a short excerpt. */
const excerptLongTokens = (detail: string) => detail.replace(/\S{65,}/g, (token) => `${token.slice(0, 32)}…`);

export function toErrorObject(
  init: Pick<ApiErrorInit, 'status' | 'code' | 'detail' | 'pointer' | 'parameter'>,
): ErrorObject {
  // `''` is a pointer too (RFC 6901): the whole document.
  const source =
    init.pointer !== undefined ? { pointer: init.pointer } : init.parameter ? { parameter: init.parameter } : undefined;
  return {
    status: String(init.status),
    code: init.code,
    title: titles[init.status] ?? 'Error',
    detail: excerptLongTokens(init.detail),
    ...(source ? { source } : {}),
  };
}

// Shared error factories used across services.
export const validationError = (pointer: string, detail: string, code = 'invalid_field') =>
  new ApiError({ status: 400, code, detail, pointer });
export const unauthorized = (code: string, detail: string) => new ApiError({ status: 401, code, detail });
export const conflict = (code: string, detail: string, pointer?: string) =>
  new ApiError({ status: 409, code, detail, pointer });
export const unprocessable = (code: string, detail: string, pointer?: string) =>
  new ApiError({ status: 422, code, detail, pointer });
/**
 * 400 `invalid_date_range`: a window whose start is after its end. By default a listing's `startDate` query
 * parameter (GET /payments, balance transactions); a body's window names its own field (`POST /webhooks/{id}/recover`).
 */
export const invalidDateRange = (
  start: { parameter: string } | { pointer: string } = { parameter: 'startDate' },
  detail = 'startDate must be before endDate',
) => new ApiError({ status: 400, code: 'invalid_date_range', detail, ...start });
