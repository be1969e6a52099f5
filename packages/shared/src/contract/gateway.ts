import { createRoute, z } from '@hono/zod-openapi';
import { strictObject } from '../http/strict-body';
import { API_VERSIONS } from '../versions/versions';
import {
  adminBodyErrors,
  adminSecurity,
  apiKeyOnly,
  authenticated,
  authenticatedBodyErrors,
  authenticatedErrors,
  errorResponses,
  idParam,
  isoTimestamp,
  jsonBody,
  jsonResponse,
  listDocument,
  requestEnvelope,
  resourceSchema,
  singleDocument,
} from './common';

// ── /auth ──────────────────────────────────────────────────────────────────────
const appKeyResource = resourceSchema(
  'auth',
  z.object({ appId: z.string(), appKey: z.string(), keyVersion: z.number().int() }),
).openapi('AppKey');

export const createAppKeyRoute = createRoute({
  method: 'post',
  path: '/auth/key',
  operationId: 'createAppKey',
  tags: ['Auth'],
  summary: 'Create an app key (invalidates the previous key and the tokens minted from it)',
  security: apiKeyOnly,
  request: {
    body: jsonBody(requestEnvelope('auth', strictObject({ appId: z.string().min(1).openapi({ example: 'app_…' }) }))),
  },
  responses: {
    201: jsonResponse('The new app key; data.id is the API key', singleDocument(appKeyResource)),
    ...authenticatedBodyErrors(403),
  },
});

const appTokenResource = resourceSchema(
  'auth',
  z.object({ appToken: z.string(), tokenType: z.literal('Bearer'), expiresAt: isoTimestamp, expiresIn: z.number() }),
).openapi('AppToken');

export const createAppTokenRoute = createRoute({
  method: 'post',
  path: '/auth/token',
  operationId: 'createAppToken',
  tags: ['Auth'],
  summary: 'Create an app token, valid one hour',
  security: apiKeyOnly,
  request: {
    body: jsonBody(requestEnvelope('auth', strictObject({ appKey: z.string().min(1) }))),
  },
  responses: {
    201: jsonResponse('The app token', singleDocument(appTokenResource)),
    ...authenticatedBodyErrors(403),
  },
});

const tokenInfoResource = resourceSchema(
  'auth',
  z.object({
    valid: z.literal(true),
    appId: z.string(),
    accountId: z.string(),
    expiresAt: isoTimestamp,
    expiresIn: z.number().int(),
  }),
).openapi('AppTokenInfo');

export const verifyAppTokenRoute = createRoute({
  method: 'get',
  path: '/auth/token',
  operationId: 'verifyAppToken',
  tags: ['Auth'],
  summary: 'Verify the app token of this call: its app, account and expiry',
  security: authenticated,
  responses: {
    200: jsonResponse('The token is valid', singleDocument(tokenInfoResource)),
    ...authenticatedErrors(403),
  },
});

const accountInfoResource = resourceSchema(
  'auth',
  z.object({
    accountId: z.string(),
    accountName: z.string(),
    status: z.enum(['active', 'disabled']),
    apps: z.array(
      z.object({ appId: z.string(), name: z.string(), keyVersion: z.number().int(), createdAt: isoTimestamp }),
    ),
  }),
).openapi('AuthAccount');

export const getAuthRoute = createRoute({
  method: 'get',
  path: '/auth',
  operationId: 'getAuthAccount',
  tags: ['Auth'],
  summary: "The caller's account and apps",
  security: authenticated,
  responses: {
    200: jsonResponse("The caller's account", singleDocument(accountInfoResource)),
    ...authenticatedErrors(403),
  },
});

// ── /admin ─────────────────────────────────────────────────────────────────────
const accountAttributes = z.object({
  name: z.string(),
  status: z.enum(['active', 'disabled']),
  apiVersion: z.enum(API_VERSIONS).openapi({ description: 'The API version the account is pinned to' }),
  createdAt: isoTimestamp,
  updatedAt: isoTimestamp,
  apiKey: z.string().optional().openapi({ description: 'Shown in full only on creation' }),
  appId: z.string().optional(),
});
const accountResource = resourceSchema('accounts', accountAttributes).openapi('Account');

export const createAccountRoute = createRoute({
  method: 'post',
  path: '/admin/accounts',
  operationId: 'createAccount',
  tags: ['Admin'],
  summary: 'Onboard an account (ops): returns its API key, shown only here, and its app id',
  security: adminSecurity,
  request: {
    body: jsonBody(requestEnvelope('accounts', strictObject({ name: z.string().trim().min(1).max(200) }))),
  },
  responses: {
    201: jsonResponse('The new account', singleDocument(accountResource)),
    ...adminBodyErrors(),
  },
});

export const updateAccountRoute = createRoute({
  method: 'put',
  path: '/admin/accounts/{id}',
  operationId: 'updateAccount',
  tags: ['Admin'],
  summary: 'Enable or disable an account, or pin it to another API version (ops)',
  security: adminSecurity,
  request: {
    params: idParam('Account id', 'acct_…'),
    body: jsonBody(
      requestEnvelope(
        'accounts',
        strictObject({
          status: z.enum(['active', 'disabled']).optional(),
          apiVersion: z.enum(API_VERSIONS).optional().openapi({ description: 'Pin the account to this version' }),
        }).refine((value) => value.status !== undefined || value.apiVersion !== undefined, {
          message: 'give status, apiVersion, or both',
        }),
      ),
    ),
  },
  responses: {
    200: jsonResponse('The account', singleDocument(accountResource)),
    ...adminBodyErrors(404),
  },
});

// ── /sandbox/clock ─────────────────────────────────────────────────────────────
const clockResource = resourceSchema('clock', z.object({ now: isoTimestamp, offsetSeconds: z.number().int() })).openapi(
  'SandboxClock',
);

export const getClockRoute = createRoute({
  method: 'get',
  path: '/sandbox/clock',
  operationId: 'getSandboxClock',
  tags: ['Sandbox'],
  summary: "The account's sandbox clock",
  security: authenticated,
  responses: { 200: jsonResponse('The clock', singleDocument(clockResource)), ...authenticatedErrors(403) },
});

export const advanceClockRoute = createRoute({
  method: 'post',
  path: '/sandbox/clock',
  operationId: 'advanceSandboxClock',
  tags: ['Sandbox'],
  summary: "Move the account's sandbox clock forward (by seconds, or to a time); never backwards",
  security: authenticated,
  request: {
    body: jsonBody(
      requestEnvelope(
        'clock',
        strictObject({
          advanceSeconds: z.number().int().optional().openapi({ example: 86400 }),
          time: z.string().datetime({ offset: true }).optional().openapi({ example: '2026-12-01T08:00:00Z' }),
        }).refine((value) => (value.advanceSeconds === undefined) !== (value.time === undefined), {
          message: 'give exactly one of advanceSeconds or time',
        }),
      ),
    ),
  },
  responses: {
    200: jsonResponse('The clock after the move', singleDocument(clockResource)),
    ...authenticatedBodyErrors(403, 422),
  },
});

// ── /versions ──────────────────────────────────────────────────────────────────
const versionResource = resourceSchema(
  'versions',
  z.object({
    newest: z.boolean(),
    changes: z
      .array(z.object({ name: z.string(), changelog: z.string() }))
      .openapi({ description: 'What changed in this version since the one before it (none for the first)' }),
  }),
).openapi('ApiVersion');

export const listVersionsRoute = createRoute({
  method: 'get',
  path: '/versions',
  operationId: 'listVersions',
  tags: ['Versions'],
  summary: 'The API versions, oldest first, each with its changes',
  description:
    'Public. An account is pinned to the version it was created in; send PPS-Version: <date> to ask for another. ' +
    'Every answer carries PPS-Version, the version it was rendered in.',
  // Public: no credentials asked.
  security: [],
  responses: {
    200: jsonResponse('The versions', listDocument(versionResource)),
    ...errorResponses(400),
  },
});

export const gatewayRoutes = [
  createAppKeyRoute,
  createAppTokenRoute,
  verifyAppTokenRoute,
  getAuthRoute,
  createAccountRoute,
  updateAccountRoute,
  getClockRoute,
  advanceClockRoute,
  listVersionsRoute,
];
