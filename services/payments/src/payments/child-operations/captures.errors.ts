import { ApiError } from '@pps/shared/http';
import { childPointers } from './refunds.errors';

const parent = childPointers.parentPaymentId;

/** Errors of capturing an authorization (`paymentType: capture`) and of cancelling one (docs/api.md). */
export const captureErrors = {
  notAuthorized: (id: string, status: string) =>
    new ApiError({
      status: 422,
      code: 'not_authorized',
      detail: `Payment ${id} is ${status}, not authorized; only an authorization (capture: false) can be captured`,
      pointer: parent,
    }),
  alreadyCaptured: (id: string) =>
    new ApiError({
      status: 422,
      code: 'already_captured',
      detail: `Payment ${id} is already captured; an authorization is captured once`,
      pointer: parent,
    }),
  expired: (id: string, at: Date) =>
    new ApiError({
      status: 422,
      code: 'authorization_expired',
      detail: `The authorization of payment ${id} expired at ${at.toISOString()}; authorize again`,
      pointer: parent,
    }),
  exceedsAuthorization: (authorized: number) =>
    new ApiError({
      status: 400,
      code: 'capture_exceeds_authorization',
      detail: `amount exceeds the authorization: at most ${authorized} cents can be captured`,
      pointer: childPointers.amount,
    }),
  belowFees: (fees: number) =>
    new ApiError({
      status: 400,
      code: 'amount_below_fees',
      detail: `amount must cover the fees of ${fees} cents`,
      pointer: childPointers.amount,
    }),
  belowSplit: (split: number, left: number) =>
    new ApiError({
      status: 400,
      code: 'capture_below_split',
      detail: `amount leaves ${left} cents after fees, less than the split of ${split} cents; capture more`,
      pointer: childPointers.amount,
    }),
  partialCancel: (authorized: number) =>
    new ApiError({
      status: 400,
      code: 'partial_cancel_not_supported',
      detail: `An authorization is cancelled whole: refund its full ${authorized} cents, or capture less instead`,
      pointer: childPointers.amount,
    }),
};
