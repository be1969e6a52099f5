import { createRoute, z } from '@hono/zod-openapi';
import { avsModes, fraudScreenPolicies } from '../db/schema/merchants';
import { payoutIntervals, weekdays } from '../db/schema/payouts';
import { listQuery } from '../http/pagination';
import { merchantStatuses } from '../states/merchant-states';
import {
  adminBodyErrors,
  adminSecurity,
  authenticated,
  authenticatedBodyErrors,
  authenticatedErrors,
  idParam,
  isoTimestamp,
  jsonBody,
  jsonResponse,
  listDocument,
  resourceSchema,
  singleDocument,
} from './common';
import {
  accountTypes,
  bankAccountOwnerships,
  bankAccountTypes,
  type MerchantRequestSchemas,
  merchantFeaturesBody,
  merchantRequestSchemas,
  merchantStatusBody,
  payoutScheduleBody,
} from './merchants.requests';

// Request schemas (and the field-rule hooks the merchants service fills in) live beside this file.
export * from './merchants.requests';

// ── responses ──────────────────────────────────────────────────────────────────
const masked = (example: string) => z.string().openapi({ example, description: '`xxxx` and the last four' });

const addressResponse = z.object({
  line1: z.string(),
  line2: z.string().optional(),
  city: z.string(),
  state: z.string(),
  zip: z.string(),
  country: z.string(),
});

export const merchantBankInfoSchema = z
  .object({
    bankName: z.string(),
    accountOwnership: z.enum(bankAccountOwnerships),
    accountType: z.enum(bankAccountTypes),
    accountName: z.string(),
    last4: z.string().openapi({ example: '6789' }),
    routingLast4: z.string().openapi({ example: '0021' }),
    version: z.number().int().openapi({ description: 'Grows with each update; older versions are kept' }),
    updatedAt: isoTimestamp,
  })
  .openapi('MerchantBankInfo');

export const payoutScheduleSchema = z
  .object({
    interval: z.enum(payoutIntervals),
    weeklyAnchor: z.enum(weekdays).nullable(),
    monthlyAnchor: z.number().int().min(1).max(31).nullable(),
    delayDays: z.number().int().min(0).max(30),
  })
  .openapi('PayoutSchedule', {
    description: 'When the available balance is paid out (PUT /merchants/{id}/payout-schedule); new merchants: daily',
  });

export const merchantAttributesSchema = z
  .object({
    AVS: z.enum(avsModes),
    accountType: z.enum(accountTypes),
    accountName: z.string(),
    status: z.enum(merchantStatuses),
    statusReason: z.string().nullable(),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
    email: z.string(),
    miscData: z.string().nullable(),
    fraudScreenPolicy: z.enum(fraudScreenPolicies),
    fraudScreenSessionId: z.string().nullable(),
    features: z.object({ secondSplit: z.boolean() }),
    personalInfo: z.object({
      firstName: z.string(),
      lastName: z.string(),
      email: z.string(),
      dayPhone: z.string(),
      eveningPhone: z.string().optional(),
      birthDate: masked('xxxx1985'),
      socialSecurity: masked('xxxx6789'),
    }),
    personalAddress: addressResponse,
    businessInfo: z
      .object({
        businessName: z.string(),
        ein: masked('xxxx6789'),
        phone: z.string().optional(),
        email: z.string().optional(),
        url: z.string().optional(),
      })
      .nullable(),
    businessAddress: addressResponse.nullable(),
    bankInfo: merchantBankInfoSchema,
    payoutSchedule: payoutScheduleSchema,
    verificationData: z.object({
      ipAddress: z.string(),
      emailVerified: z.boolean(),
      emailVerifiedTimestamp: z.string().optional(),
      signature: z.string(),
      signatureTimestamp: z.string(),
      termsAccepted: z.boolean(),
    }),
  })
  .openapi('MerchantAttributes');

export type MerchantAttributes = z.infer<typeof merchantAttributesSchema>;
export const merchantResourceSchema = resourceSchema('merchants', merchantAttributesSchema).openapi('Merchant');
export type MerchantResource = z.infer<typeof merchantResourceSchema>;

export const merchantListItemSchema = resourceSchema(
  'merchants',
  z.object({
    accountName: z.string(),
    accountType: z.enum(accountTypes),
    status: z.enum(merchantStatuses),
    createdAt: isoTimestamp,
    email: z.string(),
  }),
).openapi('MerchantListItem');
export type MerchantListItem = z.infer<typeof merchantListItemSchema>;

const bankInfoUpdatedResource = resourceSchema(
  'merchants',
  z.object({
    bankInfo: z.object({
      bankName: z.string(),
      accountType: z.enum(bankAccountTypes),
      last4: z.string(),
      updatedAt: isoTimestamp,
    }),
  }),
).openapi('MerchantBankInfoUpdated');
const avsUpdatedResource = resourceSchema(
  'merchants',
  z.object({ AVS: z.enum(avsModes), updatedAt: isoTimestamp }),
).openapi('MerchantAvsUpdated');
export type MerchantBankInfoUpdated = z.infer<typeof bankInfoUpdatedResource>;
export type MerchantAvsUpdated = z.infer<typeof avsUpdatedResource>;

// ── routes ─────────────────────────────────────────────────────────────────────
const merchantId = idParam('Merchant id', 'mer_…');
const documented = merchantRequestSchemas();

/** The merchant routes with the given field rules: the service registers these; the docs use the plain ones. */
export function merchantRoutesFor(schemas: MerchantRequestSchemas = documented) {
  return {
    createMerchantRoute: createRoute({
      method: 'post',
      path: '/merchants',
      operationId: 'createMerchant',
      tags: ['Merchants'],
      summary: 'Create a merchant (active at once; sandbox trigger firstName `Review` creates it pending)',
      security: authenticated,
      request: { body: jsonBody(schemas.createMerchantBody) },
      responses: {
        201: jsonResponse('The merchant, sensitive values masked', singleDocument(merchantResourceSchema)),
        ...authenticatedBodyErrors(403, 409),
      },
    }),
    updateMerchantRoute: createRoute({
      method: 'put',
      path: '/merchants/{id}',
      operationId: 'updateMerchant',
      tags: ['Merchants'],
      summary: 'Update the bank account (group bankInfo, a new version) or the AVS mode (group AVS)',
      security: authenticated,
      request: { params: merchantId, body: jsonBody(schemas.updateMerchantBody) },
      responses: {
        200: jsonResponse('The updated group', singleDocument(z.union([bankInfoUpdatedResource, avsUpdatedResource]))),
        ...authenticatedBodyErrors(403, 404, 422),
      },
    }),
    updateBankInfoRoute: createRoute({
      method: 'put',
      path: '/merchants/{id}/bankInfo',
      operationId: 'updateMerchantBankInfo',
      tags: ['Merchants'],
      summary: 'Update the bank account: pending deposits keep the version they were created with',
      security: authenticated,
      request: { params: merchantId, body: jsonBody(schemas.updateBankInfoBody) },
      responses: {
        200: jsonResponse('The new bank account, masked', singleDocument(bankInfoUpdatedResource)),
        ...authenticatedBodyErrors(403, 404, 422),
      },
    }),
    updateAvsModeRoute: createRoute({
      method: 'put',
      path: '/merchants/{id}/avsMode',
      operationId: 'updateMerchantAvsMode',
      tags: ['Merchants'],
      summary: 'Set the AVS mode for new payments',
      security: authenticated,
      request: { params: merchantId, body: jsonBody(schemas.updateAvsBody) },
      responses: {
        200: jsonResponse('The AVS mode', singleDocument(avsUpdatedResource)),
        ...authenticatedBodyErrors(403, 404, 422),
      },
    }),
  };
}

export const updatePayoutScheduleRoute = createRoute({
  method: 'put',
  path: '/merchants/{id}/payout-schedule',
  operationId: 'updateMerchantPayoutSchedule',
  tags: ['Merchants'],
  summary: 'Set when the available balance is paid out: daily, weekly, monthly or manual, with a delay',
  security: authenticated,
  request: { params: merchantId, body: jsonBody(payoutScheduleBody) },
  responses: {
    200: jsonResponse('The merchant, with its new payout schedule', singleDocument(merchantResourceSchema)),
    ...authenticatedBodyErrors(403, 404, 422),
  },
});

export const {
  createMerchantRoute,
  updateMerchantRoute,
  updateBankInfoRoute: updateMerchantBankInfoRoute,
  updateAvsModeRoute: updateMerchantAvsModeRoute,
} = merchantRoutesFor();

export const getMerchantRoute = createRoute({
  method: 'get',
  path: '/merchants/{id}',
  operationId: 'getMerchant',
  tags: ['Merchants'],
  summary: 'A merchant of the caller, sensitive values masked',
  security: authenticated,
  request: { params: merchantId },
  responses: {
    200: jsonResponse('The merchant', singleDocument(merchantResourceSchema)),
    ...authenticatedErrors(403, 404),
  },
});

export const listMerchantsQuerySchema = listQuery(
  {
    status: z
      .enum(merchantStatuses)
      .optional()
      .openapi({ param: { name: 'status', in: 'query' } }),
  },
  { id: 'one merchant is GET /merchants/{id}', merchantId: 'one merchant is GET /merchants/{id}' },
);

export const listMerchantsRoute = createRoute({
  method: 'get',
  path: '/merchants',
  operationId: 'listMerchants',
  tags: ['Merchants'],
  summary: "The caller's merchants, newest first",
  security: authenticated,
  request: { query: listMerchantsQuerySchema },
  responses: {
    200: jsonResponse('A page of merchants', listDocument(merchantListItemSchema)),
    ...authenticatedErrors(400),
  },
});

export const setMerchantStatusRoute = createRoute({
  method: 'put',
  path: '/admin/merchants/{id}/status',
  operationId: 'setMerchantStatus',
  tags: ['Admin'],
  summary: 'Change a merchant status (ops): pending→active|closed, active→suspended|closed, suspended→active|closed',
  security: adminSecurity,
  request: { params: merchantId, body: jsonBody(merchantStatusBody) },
  responses: {
    200: jsonResponse('The merchant', singleDocument(merchantResourceSchema)),
    ...adminBodyErrors(403, 404, 422),
  },
});

export const setMerchantFeaturesRoute = createRoute({
  method: 'put',
  path: '/admin/merchants/{id}/features',
  operationId: 'setMerchantFeatures',
  tags: ['Admin'],
  summary: 'Switch merchant features (ops): secondSplit',
  security: adminSecurity,
  request: { params: merchantId, body: jsonBody(merchantFeaturesBody) },
  responses: {
    200: jsonResponse('The merchant', singleDocument(merchantResourceSchema)),
    ...adminBodyErrors(403, 404),
  },
});

export const merchantsRoutes = [
  createMerchantRoute,
  listMerchantsRoute,
  getMerchantRoute,
  updateMerchantRoute,
  updateMerchantBankInfoRoute,
  updateMerchantAvsModeRoute,
  updatePayoutScheduleRoute,
  setMerchantStatusRoute,
  setMerchantFeaturesRoute,
];
