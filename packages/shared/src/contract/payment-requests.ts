import { z } from '@hono/zod-openapi';
import { accountNumberProblem, routingNumberProblem } from '../banking';
import { strictObject } from '../http/strict-body';
import { isId } from '../ids';
import { type AmountBounds, amountString } from '../money';
import type { FieldRule } from './merchants.requests';

/** POST /payments request bodies (docs/design.md), one schema per `paymentType`. */

/** Issues whose `params.code` names the error code to report instead of `invalid_field`. */
export type CodedIssueParams = { code: string };

/** Keeps zod's own message for a missing value, so the error mapper reports it as missing. */
const unlessMissing = (message: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? undefined : message;

const text = (max = 500) => z.string().trim().min(1).max(max);

const currency = z
  .literal('USD', { error: unlessMissing('currency must be USD, the only supported currency') })
  .openapi({ example: 'USD' });

/** A vault token id: `tok_…`; anything else is 400 `invalid_token_format`. */
const tokenId = z
  .string()
  .refine((value) => isId('token', value), {
    message: 'must be a vault token id of the form tok_…',
    params: { code: 'invalid_token_format' } satisfies CodedIssueParams,
  })
  .openapi({ example: 'tok_01jd0000000000000000000000' });

const expiry = z
  .string()
  .regex(/^(0[1-9]|1[0-2])\d{2}$/, 'expiry must be MMYY')
  .openapi({ example: '1230' });

const billingAddressFields = {
  line1: z.string().max(200).optional(),
  line2: z.string().max(200).optional(),
  city: z.string().max(100).optional(),
  state: z.string().max(100).optional(),
  zip: z.string().max(20).optional(),
  country: z
    .string()
    .regex(/^[A-Za-z]{2,3}$/, 'country must be an ISO 3166 code, e.g. USA')
    .optional(),
};
export const billingAddress = strictObject(billingAddressFields).openapi('BillingAddress');
const billingAddressWithCountry = strictObject({
  ...billingAddressFields,
  country: billingAddressFields.country.unwrap().openapi({ example: 'USA' }),
});

/** A digit string checked by a banking rule; its problem's code (e.g. `invalid_routing_number`) is reported. */
const bankNumber = (rule: FieldRule, example: string) =>
  z
    .string()
    .superRefine((value, ctx) => {
      const problem = rule(value);
      if (problem)
        ctx.addIssue({ code: 'custom', message: problem.message, params: problem.code ? { code: problem.code } : {} });
    })
    .openapi({ example });

const cardToken = strictObject({ tokenId, holder: text(200), expiry, useAVS: z.boolean() });

const transaction = (bounds: AmountBounds) =>
  strictObject({ amount: amountString(bounds), currency, invoice: text(100) });
const refundTransaction = (bounds: AmountBounds) =>
  strictObject({ amount: amountString({ min: 1, max: bounds.max }), currency });
const split = (bounds: AmountBounds) =>
  strictObject({ merchantId: text(64), amount: amountString({ min: 1, max: bounds.max }) });

const common = { merchantId: text(64).openapi({ example: 'mer_…' }), miscData: z.string().max(10_000).optional() };
/** Card charges: `false` authorizes only (status `authorized`), to be captured later by `paymentType: capture`. */
const capture = z.boolean().optional().openapi({
  description: 'false: authorize only (status authorized), capture later with paymentType capture; default true',
});
/**
 * ACH debits have no authorization to hold: `capture: false` is refused rather than ignored as an unknown attribute,
 * so a client asking to authorize only is never debited.
 */
const achCapture = z
  .literal(true, { error: unlessMissing('an ACH debit cannot be authorized only: omit capture, or send true') })
  .optional()
  .openapi({ description: 'ACH debits are always captured; only true (or nothing) is accepted' });
const child = { parentPaymentId: text(64).openapi({ example: 'pay_…' }), miscData: common.miscData };

/** Why a `returnUrl` cannot be one: the cardholder's browser is sent there, so it must be an absolute web address. */
export function returnUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL (https://…)';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http or https URL';
  if (url.username || url.password) return 'must not carry a user name or password';
  return undefined;
}

/**
 * 3-D Secure for a card payment (docs/api.md, 3-D Secure): `automatic` authenticates when the card requires it or
 * is enrolled (frictionless when the issuer allows), `challenge` always challenges an enrolled card; either way the
 * cardholder comes back to `returnUrl` from the challenge page.
 */
const authentication = strictObject({
  mode: z.enum(['automatic', 'challenge']).openapi({
    description: 'automatic: authenticate when the card requires it or is enrolled; challenge: always challenge',
  }),
  returnUrl: z
    .string()
    .max(2048)
    .superRefine((value, ctx) => {
      const problem = returnUrlProblem(value);
      if (problem)
        ctx.addIssue({ code: 'custom', message: `returnUrl ${problem}`, params: { code: 'invalid_return_url' } });
    })
    .openapi({ example: 'https://shop.example.com/checkout/done' }),
})
  .optional()
  .openapi('Authentication', { description: "3-D Secure: ask the cardholder's issuer to authenticate them" });
/** An ACH debit has no cardholder to authenticate: `authentication` is refused by name, not as an unknown member. */
const achAuthentication = z
  .unknown()
  .refine((value) => value === undefined, {
    message: '3-D Secure authenticates card payments: an ACH debit takes no authentication',
    params: { code: 'authentication_not_supported' },
  })
  .optional()
  .openapi({ description: 'not accepted: 3-D Secure is for card payments' });

/** The attributes of every `paymentType`, discriminated by it; amount bounds come from config. */
export function paymentAttributesSchema(bounds: AmountBounds) {
  return z.discriminatedUnion('paymentType', [
    strictObject({
      paymentType: z.literal('tokenv3'),
      ...common,
      capture,
      authentication,
      token: cardToken,
      transaction: transaction(bounds),
      billingAddress: billingAddressWithCountry,
    }),
    strictObject({
      paymentType: z.literal('tokenv3Split'),
      ...common,
      capture,
      authentication,
      token: cardToken,
      transaction: transaction(bounds),
      billingAddress: billingAddress.optional(),
      split: split(bounds),
    }),
    strictObject({
      paymentType: z.literal('card'),
      ...common,
      capture,
      authentication,
      paymentMethod: strictObject({ token: tokenId }),
      transaction: transaction(bounds),
    }),
    strictObject({
      paymentType: z.literal('ACH'),
      ...common,
      capture: achCapture,
      authentication: achAuthentication,
      StandardEntryClassCode: z.enum(['WEB', 'PPD', 'CCD', 'TEL']).default('WEB'),
      bank: strictObject({
        bankName: text(200),
        accountType: z.enum(['checking', 'savings']),
        accountName: text(200),
        accountNumber: bankNumber(accountNumberProblem, '000123456789'),
        routingNumber: bankNumber(routingNumberProblem, '021000021'),
      }),
      transaction: transaction(bounds),
    }),
    strictObject({ paymentType: z.literal('refund'), ...child, transaction: refundTransaction(bounds) }),
    strictObject({ paymentType: z.literal('refundSplit'), ...child, transaction: refundTransaction(bounds) }),
    strictObject({ paymentType: z.literal('secondSplit'), ...child, split: split(bounds) }),
    strictObject({
      paymentType: z.literal('capture'),
      ...child,
      // Absent: the whole authorized amount.
      transaction: refundTransaction(bounds).optional(),
    }),
  ]);
}

/**
 * The `Idempotency-Key` header of POST /payments: the key of `data.requestId`, given the way Stripe's users know
 * (docs/api.md, Idempotency). Named in lower case because Hono hands request headers over lower-cased (as HTTP/2
 * sends them) and the document's parameter must be the name validated; header names are case-insensitive, so
 * clients send it in any case. An invalid value is reported with `source.parameter` (docs/decisions.md).
 */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

export const paymentIdempotencyHeaders = z.object({
  [IDEMPOTENCY_KEY_HEADER]: z
    .uuid({ error: unlessMissing(`${IDEMPOTENCY_KEY_HEADER} header must be a UUID`) })
    .optional()
    .openapi({
      description:
        'Idempotency key (UUID), scoped to the account: the same key as data.requestId. When both are given ' +
        'they must be equal (case-insensitive), else 400 idempotency_key_mismatch',
      example: '3f0c2a52-5a4e-4b8f-9a35-2d6a1f0e8c11',
    }),
});

/** `data.requestId` of a POST that creates money movements (payments, payouts): the idempotency key. */
export const requestIdField = z
  .uuid({ error: unlessMissing('requestId must be a UUID') })
  .optional()
  .openapi({
    description: 'Idempotency key (UUID), scoped to the account; or send it as the Idempotency-Key header',
    example: '3f0c2a52-5a4e-4b8f-9a35-2d6a1f0e8c11',
  });

export function createPaymentBodySchema(bounds: AmountBounds) {
  return z
    .strictObject({
      data: strictObject({
        type: z.literal('payments').openapi({ example: 'payments' }),
        requestId: requestIdField,
        attributes: paymentAttributesSchema(bounds),
      }),
    })
    .openapi('PaymentCreateRequest');
}

export type CreatePaymentBody = z.output<ReturnType<typeof createPaymentBodySchema>>;
export type PaymentAttributesInput = CreatePaymentBody['data']['attributes'];
export type PaymentInputOf<T extends PaymentAttributesInput['paymentType']> = Extract<
  PaymentAttributesInput,
  { paymentType: T }
>;
