import { ApiError, forbidden, notFound, unprocessable } from '@pps/shared/http';

export const merchantNotFound = (id: string) => notFound('merchant_not_found', `No merchant ${id}`);

export const merchantForbidden = (id: string) =>
  forbidden('merchant_forbidden', `Merchant ${id} belongs to another account`);

export const merchantClosed = (id: string) =>
  unprocessable('merchant_closed', `Merchant ${id} is closed; a closed merchant cannot be changed`);

export const operatorOnly = () => forbidden('operator_only', 'Only ops (ADMIN_TOKEN) may call this endpoint');

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
