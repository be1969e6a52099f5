import type {
  MerchantAvsUpdated,
  MerchantBankInfoUpdated,
  MerchantListItem,
  MerchantResource,
} from '@pps/shared/contract';
import { maskLast4 } from '@pps/shared/crypto';
import { absoluteUrl } from '@pps/shared/http';
import type { BankAccountVersion } from './bank-accounts.repository';
import type { MerchantRow } from './merchants.repository';
import type { PayoutScheduleSettings } from './payout-schedules.repository';

export const merchantPath = (id: string) => `/merchants/${id}`;
export const merchantUrl = (baseUrl: string, id: string) => absoluteUrl(baseUrl, merchantPath(id));

const iso = (date: Date) => date.toISOString();

/**
 * The merchant resource exactly as GET returns it (and as events carry it). Sensitive values are masked
 * from their stored last four; no decryption happens here, so nothing sensitive can leak into a response.
 */
export function merchantResource(
  row: MerchantRow,
  bank: BankAccountVersion,
  schedule: PayoutScheduleSettings,
): MerchantResource {
  return {
    type: 'merchants',
    id: row.id,
    attributes: {
      AVS: row.avsMode,
      accountType: row.accountType,
      accountName: row.accountName,
      status: row.status,
      statusReason: row.statusReason,
      createdAt: iso(row.createdAt),
      updatedAt: iso(row.updatedAt),
      email: row.email,
      miscData: row.miscData,
      fraudScreenPolicy: row.fraudScreenPolicy,
      fraudScreenSessionId: row.fraudScreenSessionId,
      features: { secondSplit: row.features.secondSplit === true },
      personalInfo: {
        ...row.personalInfo,
        birthDate: maskLast4(row.birthDateLast4),
        socialSecurity: maskLast4(row.ssnLast4),
      },
      personalAddress: row.personalAddress,
      businessInfo: row.businessInfo && row.einLast4 ? { ...row.businessInfo, ein: maskLast4(row.einLast4) } : null,
      businessAddress: row.businessAddress ?? null,
      bankInfo: bankInfoOf(bank),
      payoutSchedule: {
        interval: schedule.interval,
        weeklyAnchor: schedule.weeklyAnchor,
        monthlyAnchor: schedule.monthlyAnchor,
        delayDays: schedule.delayDays,
      },
      verificationData: row.verificationData,
    },
  };
}

export function bankInfoOf(bank: BankAccountVersion): MerchantResource['attributes']['bankInfo'] {
  return {
    bankName: bank.bankName,
    accountOwnership: bank.accountOwnership,
    accountType: bank.accountType,
    accountName: bank.accountName,
    last4: bank.last4,
    routingLast4: bank.routingLast4,
    version: bank.version,
    updatedAt: iso(bank.createdAt),
  };
}

/** A row of `GET /merchants`: the attributes the spec lists. */
export const merchantListItem = (row: MerchantRow): MerchantListItem => ({
  type: 'merchants',
  id: row.id,
  attributes: {
    accountName: row.accountName,
    accountType: row.accountType,
    status: row.status,
    createdAt: iso(row.createdAt),
    email: row.email,
  },
});

/** The answer of a bankInfo update (spec §4.10): the new account, masked. */
export const bankInfoUpdated = (merchantId: string, bank: BankAccountVersion): MerchantBankInfoUpdated => ({
  type: 'merchants',
  id: merchantId,
  attributes: {
    bankInfo: {
      bankName: bank.bankName,
      accountType: bank.accountType,
      last4: bank.last4,
      updatedAt: iso(bank.createdAt),
    },
  },
});

/** The answer of an AVS update (spec §4.11). */
export const avsUpdated = (row: MerchantRow): MerchantAvsUpdated => ({
  type: 'merchants',
  id: row.id,
  attributes: { AVS: row.avsMode, updatedAt: iso(row.updatedAt) },
});
