import { z } from '@hono/zod-openapi';
import type { FieldProblem } from '../banking';
import { avsModes, fraudScreenPolicies } from '../db/schema/merchants';
import { payoutIntervals, weekdays } from '../db/schema/payouts';
import { strictObject } from '../http/strict-body';
import { merchantStatuses } from '../states/merchant-states';
import { requestEnvelope } from './common';

// ── field rules ────────────────────────────────────────────────────────────────
/** What is wrong with a value; `code` replaces `invalid_field` (e.g. `invalid_routing_number`). */
export type { FieldProblem };
export type FieldRule = (value: string) => FieldProblem | undefined;

/**
 * The domain rules of merchant fields (ABA checksum, SSN ranges, state codes…) live in the merchants
 * service; the contract declares the shape and applies whichever rules it is given, per field, so one
 * parse reports every invalid field at once.
 */
export type MerchantFieldRules = Partial<
  Record<
    | 'socialSecurity'
    | 'ein'
    | 'birthDate'
    | 'phone'
    | 'email'
    | 'url'
    | 'zip'
    | 'state'
    | 'country'
    | 'ipAddress'
    | 'timestamp'
    | 'routingNumber'
    | 'accountNumber',
    FieldRule
  >
>;

export const accountTypes = ['personal', 'business'] as const;
export const bankAccountOwnerships = ['personal', 'business'] as const;
export const bankAccountTypes = ['checking', 'savings'] as const;

/** A required enum: absent is `missing_field`, another value `invalid_field`. */
const requiredEnum = <const T extends readonly [string, ...string[]]>(values: T) =>
  z
    .string()
    .pipe(z.enum(values))
    .openapi({ type: 'string', enum: [...values] });

const text = (max: number) =>
  z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

/** A string field checked by a domain rule. Optional ones treat an empty string as absent (clients send `""`). */
function ruled(rule: FieldRule | undefined, openapi: { example: string; description?: string }, optional = false) {
  const base = z.string().trim();
  const checked = rule
    ? base.superRefine((value, ctx) => {
        const problem = optional && value === '' ? undefined : rule(value);
        if (problem) {
          ctx.addIssue({
            code: 'custom',
            message: problem.message,
            params: problem.code ? { code: problem.code } : {},
          });
        }
      })
    : base;
  return checked.openapi(openapi);
}

const optionalText = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`).optional();

/** Request schemas, with the service's field rules applied (none: the shape only, as documented). */
export function merchantRequestSchemas(rules: MerchantFieldRules = {}) {
  const address = strictObject({
    line1: text(200).openapi({ example: '1 Market St' }),
    line2: optionalText(200),
    city: text(100).openapi({ example: 'San Francisco' }),
    state: ruled(rules.state, { example: 'CA', description: 'US state or territory code' }),
    zip: ruled(rules.zip, { example: '94105', description: '5 or 9 digits (94105 or 94105-1234)' }),
    country: ruled(rules.country, { example: 'USA', description: 'US or USA' }),
  });
  const phone = (example: string, optional = false) =>
    ruled(rules.phone, { example, description: '10 digits; punctuation allowed' }, optional);
  const email = (example: string, optional = false) => ruled(rules.email, { example }, optional);

  const personalInfo = strictObject({
    firstName: text(100).openapi({
      example: 'Jane',
      description: 'Sandbox trigger: `Review` creates the merchant `pending`',
    }),
    lastName: text(100).openapi({ example: 'Doe' }),
    email: email('jane@example.com'),
    dayPhone: phone('4155550100'),
    eveningPhone: phone('4155550101', true).optional(),
    birthDate: ruled(rules.birthDate, { example: '04-12-1985', description: 'MM-DD-YYYY, 18 or older' }),
    socialSecurity: ruled(rules.socialSecurity, { example: '123456789', description: '9 digits, a valid SSN' }),
  });

  const businessInfo = strictObject({
    businessName: text(200).openapi({ example: 'Acme Widgets LLC' }),
    ein: ruled(rules.ein, { example: '12-3456789', description: '9 digits, dash optional' }),
    phone: phone('4155550199', true).optional(),
    email: email('billing@acme.example.com', true).optional(),
    url: ruled(rules.url, { example: 'https://acme.example.com' }, true).optional(),
  });

  const bankInfo = strictObject({
    bankName: text(100).openapi({ example: 'First Test Bank' }),
    accountOwnership: requiredEnum(bankAccountOwnerships),
    accountType: requiredEnum(bankAccountTypes),
    accountName: text(200).openapi({ example: 'Jane Doe' }),
    accountNumber: ruled(rules.accountNumber, { example: '000123456789', description: '4 to 17 digits' }),
    routingNumber: ruled(rules.routingNumber, {
      example: '021000021',
      description: '9-digit ABA routing number: checksum and Federal Reserve prefix are checked',
    }),
  }).openapi('BankInfoInput');

  const verificationData = strictObject({
    ipAddress: ruled(rules.ipAddress, { example: '203.0.113.7' }),
    emailVerified: z.boolean(),
    emailVerifiedTimestamp: ruled(rules.timestamp, { example: '2026-11-01T10:00:00Z' }, true).optional(),
    signature: text(500).openapi({ example: 'Jane Doe' }),
    signatureTimestamp: ruled(rules.timestamp, { example: '2026-11-01T10:05:00Z' }),
    termsAccepted: z
      .boolean()
      .refine((value) => value === true, { message: 'must be true: the terms must be accepted' }),
  });

  const avs = requiredEnum(avsModes).openapi({ description: 'Address verification mode' });

  const createAttributes = strictObject({
    accountType: requiredEnum(accountTypes),
    accountName: text(200).openapi({ example: 'Jane Doe Photography' }),
    AVS: z.enum(avsModes).default('Standard'),
    fraudScreenPolicy: z.enum(fraudScreenPolicies).default('Default'),
    fraudScreenSessionId: optionalText(200),
    miscData: z.string().max(10_000, 'must be at most 10000 characters').optional(),
    personalInfo,
    personalAddress: address,
    businessInfo: businessInfo.optional().openapi({ description: 'Required when accountType is business' }),
    businessAddress: address.optional().openapi({ description: 'Required when accountType is business' }),
    bankInfo,
    verificationData,
  })
    // Runs even when other fields failed, so a request lists every problem at once.
    .superRefine(
      (attributes, ctx) => {
        const value = attributes as Record<string, unknown> | undefined;
        if (typeof value !== 'object' || value === null || value.accountType !== 'business') return;
        for (const group of ['businessInfo', 'businessAddress'] as const) {
          if (value[group] === undefined) {
            ctx.addIssue({
              code: 'custom',
              path: [group],
              message: 'is required for a business merchant',
              params: { code: 'missing_field' },
            });
          }
        }
      },
      { when: () => true },
    );

  const groupUpdate = z.discriminatedUnion('group', [
    strictObject({ group: z.literal('bankInfo'), bankInfo }),
    strictObject({ group: z.literal('AVS'), AVS: avs }),
  ]);

  return {
    createMerchantBody: requestEnvelope('merchants', createAttributes).openapi('CreateMerchantRequest'),
    updateMerchantBody: requestEnvelope('merchants', groupUpdate).openapi('UpdateMerchantRequest'),
    updateBankInfoBody: requestEnvelope(
      'merchants',
      strictObject({ group: z.literal('bankInfo').optional(), bankInfo }),
    ).openapi('UpdateBankInfoRequest'),
    updateAvsBody: requestEnvelope('merchants', strictObject({ group: z.literal('AVS').optional(), AVS: avs })).openapi(
      'UpdateAvsModeRequest',
    ),
  };
}

export type MerchantRequestSchemas = ReturnType<typeof merchantRequestSchemas>;
export type CreateMerchantAttributes = z.output<MerchantRequestSchemas['createMerchantBody']>['data']['attributes'];
export type BankInfoInput = Extract<
  z.output<MerchantRequestSchemas['updateMerchantBody']>['data']['attributes'],
  { group: 'bankInfo' }
>['bankInfo'];

export const merchantStatusBody = requestEnvelope(
  'merchants',
  strictObject({ status: requiredEnum(merchantStatuses), reason: text(500).optional() }),
).openapi('MerchantStatusRequest');

export const merchantFeaturesBody = requestEnvelope(
  'merchants',
  strictObject({ features: strictObject({ secondSplit: z.boolean() }) }),
).openapi('MerchantFeaturesRequest');

/** Keeps zod's own message for a missing value, so the error mapper reports it as missing. */
const unlessMissing = (message: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? undefined : message;

/** A whole number within bounds; a string, a decimal or anything outside is `invalid_field` with `message`. */
const boundedInteger = (message: string, min: number, max: number) =>
  z
    .int({ error: unlessMissing(message) })
    .min(min, message)
    .max(max, message);

/**
 * PUT /merchants/{id}/payout-schedule: the whole schedule (docs/api.md, Payout schedule). An anchor belongs to its
 * interval: weekly needs `weeklyAnchor`, monthly `monthlyAnchor`, and an anchor given for another interval is
 * refused rather than ignored, so a client never believes a schedule it did not get. `null` is an absent anchor.
 */
export const payoutScheduleBody = requestEnvelope(
  'merchants',
  strictObject({
    interval: requiredEnum(payoutIntervals).openapi({
      description: 'daily, weekly (on weeklyAnchor), monthly (on monthlyAnchor) or manual (POST /payouts only)',
    }),
    weeklyAnchor: z
      .enum(weekdays, { error: unlessMissing(`weeklyAnchor must be one of ${weekdays.join(', ')}`) })
      .nullish()
      .openapi({ description: 'The weekday of a weekly payout; required for weekly, refused otherwise' }),
    monthlyAnchor: boundedInteger('monthlyAnchor must be an integer from 1 to 31', 1, 31).nullish().openapi({
      description: 'The day of the month (1–31) of a monthly payout; required for monthly, refused otherwise',
    }),
    delayDays: boundedInteger('delayDays must be an integer from 0 to 30', 0, 30)
      .default(0)
      .openapi({ description: 'Days money waits once available before an automatic payout takes it' }),
  })
    // Runs even when other fields failed, so a request lists every problem at once.
    .superRefine(
      (attributes, ctx) => {
        const value = attributes as Record<string, unknown> | undefined;
        if (typeof value !== 'object' || value === null) return;
        const anchors = [
          { field: 'weeklyAnchor', interval: 'weekly' },
          { field: 'monthlyAnchor', interval: 'monthly' },
        ] as const;
        for (const { field, interval } of anchors) {
          const given = value[field] !== undefined && value[field] !== null;
          if (value.interval === interval && !given) {
            ctx.addIssue({
              code: 'custom',
              path: [field],
              message: `${field} is required when interval is ${interval}`,
              params: { code: 'missing_field' },
            });
          }
          if (value.interval !== interval && given && typeof value.interval === 'string') {
            ctx.addIssue({
              code: 'custom',
              path: [field],
              message: `${field} applies to ${interval} schedules only; leave it out for interval ${value.interval}`,
            });
          }
        }
      },
      { when: () => true },
    ),
).openapi('UpdatePayoutScheduleRequest');
export type PayoutScheduleInput = z.output<typeof payoutScheduleBody>['data']['attributes'];
