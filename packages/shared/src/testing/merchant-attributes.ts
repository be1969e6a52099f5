import { randomInt } from 'node:crypto';

/** A unique, valid SSN (area 100–665, group and serial non-zero) so fixtures never collide as duplicates. */
export const uniqueSsn = () => `${randomInt(100, 666)}${randomInt(10, 100)}${randomInt(1000, 10000)}`;
/** EIN prefixes the IRS assigns (the merchants service refuses the others, e.g. 07, 17, 28, 49, 69, 78, 89, 96). */
const EIN_PREFIXES = ['10', '12', '20', '27', '33', '45', '46', '54', '65', '82', '91', '98'];
export const uniqueEin = () => `${EIN_PREFIXES[randomInt(EIN_PREFIXES.length)]}${randomInt(1000000, 10000000)}`;
export const uniqueEmail = (name = 'owner') => `${name}.${randomInt(1, 1e9)}@example.com`;

/** A valid personal merchant body (docs/design.md). Routing 021000021 passes the ABA checksum. */
export function personalMerchantAttributes(overrides: Record<string, unknown> = {}) {
  return {
    AVS: 'Standard',
    accountType: 'personal',
    accountName: 'Jane Doe Photography',
    miscData: '{"source":"test"}',
    personalInfo: {
      firstName: 'Jane',
      lastName: 'Doe',
      email: uniqueEmail('jane'),
      dayPhone: '4155550100',
      eveningPhone: '4155550101',
      birthDate: '04-12-1985',
      socialSecurity: uniqueSsn(),
    },
    personalAddress: {
      line1: '1 Market St',
      line2: 'Suite 5',
      city: 'San Francisco',
      state: 'CA',
      zip: '94105',
      country: 'USA',
    },
    bankInfo: {
      bankName: 'First Test Bank',
      accountOwnership: 'personal',
      accountType: 'checking',
      accountName: 'Jane Doe',
      accountNumber: '000123456789',
      routingNumber: '021000021',
    },
    verificationData: {
      ipAddress: '203.0.113.7',
      emailVerified: true,
      emailVerifiedTimestamp: '2026-11-01T10:00:00Z',
      signature: 'Jane Doe',
      signatureTimestamp: '2026-11-01T10:05:00Z',
      termsAccepted: true,
    },
    fraudScreenPolicy: 'Default',
    ...overrides,
  };
}

/** A valid business merchant body: the owner's personal info plus the business, its address and bank account. */
export function businessMerchantAttributes(overrides: Record<string, unknown> = {}) {
  return {
    ...personalMerchantAttributes(),
    accountType: 'business',
    accountName: 'Acme Widgets LLC',
    businessInfo: {
      businessName: 'Acme Widgets LLC',
      ein: uniqueEin(),
      phone: '4155550199',
      email: uniqueEmail('billing'),
      url: 'https://acme.example.com',
    },
    businessAddress: { line1: '500 Howard St', city: 'San Francisco', state: 'CA', zip: '94105', country: 'USA' },
    bankInfo: {
      bankName: 'First Test Bank',
      accountOwnership: 'business',
      accountType: 'checking',
      accountName: 'Acme Widgets LLC',
      accountNumber: '000987654321',
      routingNumber: '011000015',
    },
    ...overrides,
  };
}
