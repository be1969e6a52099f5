import { createRoute, z } from '@hono/zod-openapi';
import { listQuery } from '../http/pagination';
import { strictObject } from '../http/strict-body';
import {
  authenticated,
  authenticatedBodyErrors,
  authenticatedErrors,
  idParam,
  isoTimestamp,
  jsonBody,
  jsonResponse,
  listDocument,
  requestEnvelope,
  resourceSchema,
  singleDocument,
} from './common';

/** Optional text: trimmed; blank counts as absent. */
const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .optional()
    .transform((value) => (value ? value : undefined));

/** Loose on purpose: digits with the usual separators and an optional leading +, 7 to 15 digits (E.164 length). */
const phone = z
  .string()
  .trim()
  .refine(
    (value) => /^\+?[\d\s().-]+$/.test(value) && /^\d{7,15}$/.test(value.replace(/\D/g, '')),
    'phone must be 7 to 15 digits, optionally with +, spaces, dashes, dots or parentheses',
  )
  .optional()
  .openapi({ example: '+1 415 555 0100' });

export const createCustomerBodySchema = requestEnvelope(
  'customers',
  strictObject({
    name: z.string().trim().min(1).max(200).openapi({ example: 'Ada Lovelace' }),
    email: z.email('email must be a valid email address').max(254).optional().openapi({ example: 'ada@example.com' }),
    phone,
    externalId: optionalText(100).openapi({ example: 'user-42', description: "The platform's own reference" }),
    merchantId: z.string().min(1).max(64).optional().openapi({ example: 'mer_…' }),
  }),
).openapi('CustomerCreateRequest');

export type CreateCustomerBody = z.output<typeof createCustomerBodySchema>;
export type CustomerInput = CreateCustomerBody['data']['attributes'];

export const customerAttributesSchema = z.object({
  name: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  externalId: z.string().nullable(),
  merchantId: z.string().nullable(),
  createdAt: isoTimestamp,
  updatedAt: isoTimestamp,
});

export const customerResourceSchema = resourceSchema('customers', customerAttributesSchema).openapi('Customer');

export const createCustomerRoute = createRoute({
  method: 'post',
  path: '/customers',
  operationId: 'createCustomer',
  tags: ['Customers'],
  summary: 'Create a customer, optionally tied to a merchant of the account',
  security: authenticated,
  request: { body: jsonBody(createCustomerBodySchema) },
  responses: {
    201: jsonResponse('The customer', singleDocument(customerResourceSchema)),
    ...authenticatedBodyErrors(403),
  },
});

export const getCustomerRoute = createRoute({
  method: 'get',
  path: '/customers/{id}',
  operationId: 'getCustomer',
  tags: ['Customers'],
  summary: 'Retrieve a customer',
  security: authenticated,
  request: { params: idParam('Customer id', 'cus_…') },
  responses: {
    200: jsonResponse('The customer', singleDocument(customerResourceSchema)),
    ...authenticatedErrors(403, 404),
  },
});

const queryText = (name: string, description: string, example: string) =>
  z
    .string()
    .optional()
    .openapi({ param: { name, in: 'query' }, description, example });

export const listCustomersQuerySchema = listQuery(
  {
    externalId: queryText('externalId', 'Only customers with this external id', 'user-42'),
    merchantId: queryText('merchantId', "Only this merchant's customers", 'mer_…'),
  },
  { id: 'the merchant filter is merchantId', merchant: 'the merchant filter is merchantId' },
);

export const listCustomersRoute = createRoute({
  method: 'get',
  path: '/customers',
  operationId: 'listCustomers',
  tags: ['Customers'],
  summary: 'The account’s customers, newest first',
  security: authenticated,
  request: { query: listCustomersQuerySchema },
  responses: {
    200: jsonResponse('A page of customers', listDocument(customerResourceSchema)),
    ...authenticatedErrors(400, 403),
  },
});

export const customersRoutes = [createCustomerRoute, getCustomerRoute, listCustomersRoute];
