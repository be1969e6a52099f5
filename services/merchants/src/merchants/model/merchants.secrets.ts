import type { Config } from '@pps/shared/config';
import { blindIndex, FieldCipher } from '@pps/shared/crypto';
import type { ServiceContext } from '@pps/shared/http';
import { normalizeEmail } from '../../validation';

/** Field encryption and blind indexes, built once per app from the key ring (first key active). */
export type MerchantSecrets = {
  cipher: FieldCipher;
  emailIndex: (email: string) => string;
  /** SSN and EIN use different purposes, so a 9-digit SSN never collides with an EIN. */
  taxIdIndex: (kind: 'ssn' | 'ein', digits: string) => string;
};

export function createMerchantSecrets(
  config: Pick<Config, 'DATA_ENCRYPTION_KEYS' | 'BLIND_INDEX_KEY'>,
): MerchantSecrets {
  const cipher = new FieldCipher(config.DATA_ENCRYPTION_KEYS);
  return {
    cipher,
    emailIndex: (email) => blindIndex(config.BLIND_INDEX_KEY, 'merchant-email', normalizeEmail(email)),
    taxIdIndex: (kind, digits) => blindIndex(config.BLIND_INDEX_KEY, `merchant-${kind}`, digits),
  };
}

/** The context of use cases that read or write sensitive fields. */
export type MerchantsContext = ServiceContext & { secrets: MerchantSecrets };
