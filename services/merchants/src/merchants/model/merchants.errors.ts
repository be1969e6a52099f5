import { ApiError, unprocessable } from '@pps/shared/http';

export const merchantClosed = (id: string) =>
  unprocessable('merchant_closed', `Merchant ${id} is closed; a closed merchant cannot be changed`);

export const operatorOnly = () =>
  new ApiError({ status: 403, code: 'operator_only', detail: 'Only ops (ADMIN_TOKEN) may call this endpoint' });

export const DUPLICATE_POINTERS = {
  email: '/data/attributes/personalInfo/email',
  ssn: '/data/attributes/personalInfo/socialSecurity',
  ein: '/data/attributes/businessInfo/ein',
} as const;

export type DuplicateField = keyof typeof DUPLICATE_POINTERS;

const duplicateDetail: Record<DuplicateField, string> = {
  email: 'Another merchant of this account already uses this email',
  ssn: 'Another merchant of this account already uses this Social Security number',
  ein: 'Another merchant of this account already uses this EIN',
};

/** 409 `duplicate_merchant`, one error per duplicated field, each with its pointer. */
export const duplicateMerchant = (fields: DuplicateField[]) =>
  ApiError.many(
    fields.map((field) => ({
      status: 409,
      code: 'duplicate_merchant',
      detail: duplicateDetail[field],
      pointer: DUPLICATE_POINTERS[field],
    })),
  );
