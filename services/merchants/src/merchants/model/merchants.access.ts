import type { MerchantResource } from '@pps/shared/contract';
import type { DbOrTx } from '@pps/shared/db';
import { writeEvent } from '@pps/shared/events';
import type { CallerContext } from '@pps/shared/http';
import { isOperator, notFound, ownedBy } from '@pps/shared/http';
import { isId } from '@pps/shared/ids';
import { currentBankAccount } from './bank-accounts.repository';
import { merchantClosed } from './merchants.errors';
import { merchantResource } from './merchants.presenter';
import { findMerchant, lockMerchant, type MerchantRow } from './merchants.repository';
import { findSchedule } from './payout-schedules.repository';

/**
 * The merchant the caller may act on: 404 when it does not exist (malformed ids included), 403 when it
 * belongs to another account. Ops (the operator context) may act on any. `lock` takes the row lock.
 */
export async function requireMerchant(
  db: DbOrTx,
  caller: CallerContext,
  id: string,
  options: { lock?: boolean } = {},
): Promise<MerchantRow> {
  if (!isId('merchant', id)) throw notFound('merchant', id);
  const row = options.lock ? await lockMerchant(db, id) : await findMerchant(db, id);
  if (row && isOperator(caller)) return row;
  return ownedBy(row, caller, 'merchant', id);
}

export function assertNotClosed(row: MerchantRow): void {
  if (row.status === 'closed') throw merchantClosed(row.id);
}

/** The full (masked) resource of a merchant row, with its bank account in force and its payout schedule. */
export async function presentMerchant(db: DbOrTx, row: MerchantRow): Promise<MerchantResource> {
  const [bank, schedule] = await Promise.all([currentBankAccount(db, row.id), findSchedule(db, row.id)]);
  if (!bank) throw new Error(`merchant ${row.id} has no current bank account`);
  return merchantResource(row, bank, schedule);
}

type MerchantEventType = 'merchant.created' | 'merchant.updated' | 'merchant.status_changed';

/** Writes the event of a change in the transaction that made it; its resource is the merchant as GET shows it. */
export async function recordMerchantEvent(
  tx: DbOrTx,
  input: { type: MerchantEventType; row: MerchantRow; previousStatus?: string; requestId: string },
): Promise<MerchantResource> {
  const resource = await presentMerchant(tx, input.row);
  await writeEvent(tx, {
    accountId: input.row.accountId,
    type: input.type,
    resource,
    previousStatus: input.previousStatus ?? null,
    requestId: input.requestId,
  });
  return resource;
}
