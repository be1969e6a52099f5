import type {
  CreateMerchantAttributes,
  MerchantAvsUpdated,
  MerchantListItem,
  MerchantResource,
} from '@pps/shared/contract';
import { type schema, type Travel, withTransaction } from '@pps/shared/db';
import { keysetOf, type PageQuery, type ServiceContext, validationError } from '@pps/shared/http';
import { newId } from '@pps/shared/ids';
import { ageProblem, digitsOf, phoneDigits } from '../../validation';
import { addBankAccountVersion } from '../model/bank-accounts.repository';
import { assertNotClosed, presentMerchant, recordMerchantEvent, requireMerchant } from '../model/merchants.access';
import { duplicateMerchant } from '../model/merchants.errors';
import { avsUpdated, merchantListItem } from '../model/merchants.presenter';
import {
  findDuplicates,
  insertMerchant,
  listMerchantRows,
  merchantPlace,
  updateMerchantRow,
} from '../model/merchants.repository';
import type { MerchantsContext } from '../model/merchants.secrets';
import { insertDefaultSchedule } from '../model/payout-schedules.repository';

type AvsMode = schema.AvsMode;
type MerchantStatus = schema.MerchantStatus;

/** Sandbox trigger (docs/design.md): this first name creates the merchant `pending` (under review). */
export const REVIEW_TRIGGER_FIRST_NAME = 'Review';

const BIRTH_DATE_POINTER = '/data/attributes/personalInfo/birthDate';

/** Drops absent and empty optional values, so stored groups hold only what was given. */
const compact = <T extends Record<string, unknown>>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== '')) as T;

const phone = (value: string | undefined) => (value ? phoneDigits(value) : undefined);

const address = (value: NonNullable<CreateMerchantAttributes['businessAddress']>) =>
  compact({ ...value, state: value.state.toUpperCase(), country: value.country.toUpperCase() });

export async function createMerchant({
  ctx,
  input,
}: {
  ctx: MerchantsContext;
  input: CreateMerchantAttributes;
}): Promise<MerchantResource> {
  const now = ctx.clock.now();
  const { secrets } = ctx;
  // Age is measured on the account's sandbox clock, which the request schema cannot know.
  const underage = ageProblem(input.personalInfo.birthDate, now);
  if (underage) throw validationError(BIRTH_DATE_POINTER, `birthDate: ${underage.message}`);
  const business = input.accountType === 'business';
  if (business && (!input.businessInfo || !input.businessAddress)) {
    throw validationError('/data/attributes/businessInfo', 'businessInfo is required', 'missing_field');
  }

  const { personalInfo: person, bankInfo } = input;
  const ssn = digitsOf(person.socialSecurity);
  const ein = business ? digitsOf(input.businessInfo!.ein) : undefined;
  const taxIdField = business ? 'ein' : 'ssn';
  const emailIndex = secrets.emailIndex(person.email);
  const taxIdIndex = secrets.taxIdIndex(taxIdField, ein ?? ssn);
  const status: MerchantStatus = person.firstName === REVIEW_TRIGGER_FIRST_NAME ? 'pending' : 'active';

  return withTransaction(ctx.db, async (tx) => {
    const duplicates = await findDuplicates(tx, { accountId: ctx.accountId, emailIndex, taxIdIndex, taxIdField });
    if (duplicates.length > 0) throw duplicateMerchant(duplicates);
    const row = await insertMerchant(
      tx,
      {
        id: newId('merchant'),
        accountId: ctx.accountId,
        status,
        statusReason: status === 'pending' ? 'Under review' : null,
        accountType: input.accountType,
        accountName: input.accountName,
        avsMode: input.AVS,
        fraudScreenPolicy: input.fraudScreenPolicy,
        fraudScreenSessionId: input.fraudScreenSessionId || null,
        miscData: input.miscData ?? null,
        email: person.email,
        personalInfo: compact({
          firstName: person.firstName,
          lastName: person.lastName,
          email: person.email,
          dayPhone: phone(person.dayPhone)!,
          eveningPhone: phone(person.eveningPhone),
        }),
        personalAddress: address(input.personalAddress),
        businessInfo: business
          ? compact({
              businessName: input.businessInfo!.businessName,
              phone: phone(input.businessInfo!.phone),
              email: input.businessInfo!.email,
              url: input.businessInfo!.url,
            })
          : null,
        businessAddress: business ? address(input.businessAddress!) : null,
        verificationData: compact({ ...input.verificationData }),
        ssnEnc: secrets.cipher.encrypt(ssn),
        ssnLast4: ssn.slice(-4),
        birthDateEnc: secrets.cipher.encrypt(person.birthDate),
        birthDateLast4: person.birthDate.slice(-4),
        einEnc: ein ? secrets.cipher.encrypt(ein) : null,
        einLast4: ein ? ein.slice(-4) : null,
        emailIndex,
        taxIdIndex,
        features: {},
        createdAt: now,
        updatedAt: now,
      },
      taxIdField,
    );
    await addBankAccountVersion(tx, secrets.cipher, { merchantId: row.id, bank: bankInfo, now });
    await insertDefaultSchedule(tx, { merchantId: row.id, accountId: ctx.accountId, now });
    ctx.log.info({ merchantId: row.id, status }, 'merchant created');
    return recordMerchantEvent(tx, { type: 'merchant.created', row, requestId: ctx.requestId });
  });
}

export async function getMerchant({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { merchantId: string };
}): Promise<MerchantResource> {
  const row = await requireMerchant(ctx.db, ctx, input.merchantId);
  return presentMerchant(ctx.db, row);
}

export async function listMerchants({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: PageQuery & { status?: MerchantStatus };
}): Promise<{ items: MerchantListItem[]; total: number; travel?: Travel }> {
  const keyset = await keysetOf(input, (id) => merchantPlace(ctx.db, ctx.accountId, id));
  const { rows, total, travel } = await listMerchantRows(ctx.db, { accountId: ctx.accountId, ...input, keyset });
  return { items: rows.map(merchantListItem), total, travel };
}

/** AVS mode for new payments; a payment in flight keeps the mode it read. Setting the same mode changes nothing. */
export async function updateAvsMode({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { merchantId: string; avsMode: AvsMode };
}): Promise<MerchantAvsUpdated> {
  return withTransaction(ctx.db, async (tx) => {
    const current = await requireMerchant(tx, ctx, input.merchantId, { lock: true });
    assertNotClosed(current);
    if (current.avsMode === input.avsMode) return avsUpdated(current);
    const row = await updateMerchantRow(tx, current.id, { avsMode: input.avsMode, updatedAt: ctx.clock.now() });
    await recordMerchantEvent(tx, { type: 'merchant.updated', row, requestId: ctx.requestId });
    ctx.log.info({ merchantId: row.id, avsMode: row.avsMode }, 'merchant AVS mode changed');
    return avsUpdated(row);
  });
}
