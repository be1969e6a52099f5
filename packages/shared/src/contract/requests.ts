import { createRoute, z } from '@hono/zod-openapi';
import { listQuery } from '../http/pagination';
import {
  authenticated,
  authenticatedErrors,
  idParam,
  isoTimestamp,
  jsonResponse,
  listDocument,
  resourceSchema,
  singleDocument,
} from './common';

/**
 * The request log (docs/api.md, Request log): every API request of the account, answered by the gateway, which sees
 * every request and owns the log.
 */

export const requestMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

// ── responses ──────────────────────────────────────────────────────────────────
const requestAttributes = {
  method: z.string().openapi({ example: 'POST' }),
  path: z.string().openapi({ example: '/payments?merchantId=mer_…', description: 'The path with its query string' }),
  status: z.number().int().openapi({ example: 201 }),
  requestId: z.string().openapi({
    example: 'req_01m84s8mm3w2c5y7q0e9hn4k1d',
    description: 'The `x-request-id` of the answer: the one the client sent, else the request id (`id`)',
  }),
  idempotencyKey: z.string().nullable().openapi({
    description: 'The `Idempotency-Key` header, or `data.requestId` of a POST /payments or /payouts body',
  }),
  durationMs: z.number().int().openapi({ description: "The gateway's time to answer, in milliseconds" }),
  createdAt: isoTimestamp.openapi({ description: 'When the request arrived (real time)' }),
};

const body = (which: string) =>
  z
    .string()
    .nullable()
    .openapi({
      description:
        `The ${which} body as JSON text, every secret replaced by "[redacted]", at most 16,384 characters; null when ` +
        'there was none or it was not JSON',
    });

export const requestSummarySchema = resourceSchema('requests', z.object(requestAttributes)).openapi('RequestSummary');

export const requestResourceSchema = resourceSchema(
  'requests',
  z.object({
    ...requestAttributes,
    requestBody: body('request'),
    requestBodyTruncated: z.boolean().openapi({ description: 'The request body was cut at 16,384 characters' }),
    responseBody: body('response'),
    responseBodyTruncated: z.boolean().openapi({ description: 'The response body was cut at 16,384 characters' }),
  }),
).openapi('Request');

// ── routes ─────────────────────────────────────────────────────────────────────
/** A status filter: one code (`404`), or a class of them (`{ class: 4 }` for `4xx`). */
export type StatusFilter = { code: number } | { class: number };

/**
 * An optional text parameter: empty is no filter (as the form of a page sends it); anything else passes `problem`
 * (which says what is wrong, as a 400 naming the parameter) and becomes what `parse` makes of it.
 */
const filterParam = <T>(
  name: string,
  description: string,
  example: string,
  problem: (value: string) => string | undefined,
  parse: (value: string) => T,
) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return undefined;
      const wrong = problem(value);
      if (wrong) {
        ctx.addIssue({ code: 'custom', message: `${name} ${wrong}` });
        return z.NEVER;
      }
      return parse(value);
    })
    .openapi({ type: 'string', param: { name, in: 'query' }, description, example });

const STATUS = /^([1-5])(\d\d|xx)$/i;
const REQUEST_ID = /^[\w.:-]{1,128}$/;

export const listRequestsQuerySchema = listQuery(
  {
    status: filterParam(
      'status',
      'A status code (`404`), or a class of them (`4xx`)',
      '4xx',
      (value) => (STATUS.test(value) ? undefined : 'must be a status code (404) or a class of them (4xx)'),
      (value): StatusFilter => {
        const [, first, rest] = STATUS.exec(value) as RegExpExecArray;
        return rest?.toLowerCase() === 'xx' ? { class: Number(first) } : { code: Number(value) };
      },
    ),
    method: filterParam(
      'method',
      `One method: ${requestMethods.join(', ')}`,
      'POST',
      (value) =>
        (requestMethods as readonly string[]).includes(value)
          ? undefined
          : `must be one of ${requestMethods.map((method) => `"${method}"`).join(', ')}`,
      (value) => value as (typeof requestMethods)[number],
    ),
    path: filterParam(
      'path',
      'Requests whose path (with its query string) starts with this',
      '/payments',
      (value) =>
        !value.startsWith('/')
          ? 'must start with /'
          : value.length > 1024
            ? 'must be at most 1024 characters'
            : undefined,
      (value) => value,
    ),
    requestId: filterParam(
      'requestId',
      "The request whose `x-request-id` this was (the gateway's, or one the client sent)",
      'req_…',
      (value) => (REQUEST_ID.test(value) ? undefined : 'must be 1 to 128 letters, digits, _ . : or -'),
      (value) => value,
    ),
  },
  {
    id: 'one request is GET /requests/{id}; the x-request-id filter is requestId',
    statusCode: 'the filter is status',
  },
);

export const listRequestsRoute = createRoute({
  method: 'get',
  path: '/requests',
  operationId: 'listRequests',
  tags: ['Requests'],
  summary: "The account's API requests of the last 30 days, newest first",
  security: authenticated,
  request: { query: listRequestsQuerySchema },
  responses: {
    200: jsonResponse('A page of requests, without their bodies', listDocument(requestSummarySchema)),
    ...authenticatedErrors(400),
  },
});

export const getRequestRoute = createRoute({
  method: 'get',
  path: '/requests/{id}',
  operationId: 'getRequest',
  tags: ['Requests'],
  summary: 'One request of the log, with its bodies (secrets redacted)',
  security: authenticated,
  request: { params: idParam('Request id', 'req_…') },
  responses: {
    200: jsonResponse('The request', singleDocument(requestResourceSchema)),
    ...authenticatedErrors(404),
  },
});

export const requestsRoutes = [listRequestsRoute, getRequestRoute];
