import { z } from '@hono/zod-openapi';

/** Request envelope: `{ data: { type, attributes } }`; a wrong `data.type` is a 400, extra attributes are ignored. */
export const requestEnvelope = <T extends string, A extends z.ZodTypeAny>(type: T, attributes: A) =>
  z.object({
    data: z.object({
      type: z.literal(type).openapi({ example: type }),
      attributes,
    }),
  });

/** A resource object of the response: `{ type, id, attributes }`. */
export const resourceSchema = <T extends string, A extends z.ZodTypeAny>(type: T, attributes: A) =>
  z.object({ type: z.literal(type), id: z.string(), attributes });

export const singleDocument = <R extends z.ZodTypeAny>(resource: R) =>
  z.object({ links: z.object({ self: z.string().url() }), data: resource });

export const listDocument = <R extends z.ZodTypeAny>(resource: R) =>
  z.object({
    links: z.object({ self: z.string().url(), next: z.string().url().nullable() }),
    data: z.array(resource),
    meta: z.object({
      total: z.number().int(),
      limit: z.number().int(),
      offset: z.number().int(),
      hasMore: z.boolean(),
    }),
  });

export const errorDocumentSchema = z
  .object({
    errors: z.array(
      z.object({
        status: z.string().openapi({ example: '400' }),
        code: z.string().openapi({ example: 'invalid_field' }),
        title: z.string().openapi({ example: 'Bad Request' }),
        detail: z.string(),
        source: z.union([z.object({ pointer: z.string() }), z.object({ parameter: z.string() })]).optional(),
      }),
    ),
    meta: z.object({ requestId: z.string() }).catchall(z.unknown()),
  })
  .openapi('ErrorDocument');

const errorDescriptions: Record<number, string> = {
  400: 'Invalid request: every invalid field is listed with its pointer',
  401: 'Missing, malformed, expired or revoked credentials',
  402: 'Payment failed (card declined)',
  403: 'The resource belongs to another account, or the account is not authorized',
  404: 'Not found',
  409: 'Conflict',
  413: 'Body larger than 1 MiB',
  415: 'Body is not application/json',
  422: 'Unprocessable: the request is valid but cannot be carried out',
  501: 'Not implemented yet',
};

/** Error responses of a route, documented with the shared error document. */
export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: errorDescriptions[status] ?? 'Error',
        content: { 'application/json': { schema: errorDocumentSchema } },
      },
    ]),
  );

export const jsonBody = <S extends z.ZodTypeAny>(schema: S) => ({
  required: true,
  content: { 'application/json': { schema } },
});

export const jsonResponse = <S extends z.ZodTypeAny>(description: string, schema: S) => ({
  description,
  content: { 'application/json': { schema } },
});

/** Security requirement of the authenticated calls: the four headers (docs/design.md). */
export const authenticated = [{ appToken: [], apiKey: [], appId: [] }];

/** Common errors of every authenticated call. */
export const AUTHENTICATED_ERRORS = [400, 401, 403, 413, 415] as const;

export const isoTimestamp = z.string().openapi({ format: 'date-time', example: '2026-11-22T17:04:05.123Z' });
export const centsString = z.string().regex(/^\d+$/).openapi({ example: '1000', description: 'Integer cents' });

export const idParam = (name: string, example: string) =>
  z.object({
    id: z
      .string()
      .min(1)
      .openapi({ param: { name: 'id', in: 'path' }, example, description: name }),
  });
