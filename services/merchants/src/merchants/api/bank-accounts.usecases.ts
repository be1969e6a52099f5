import type { MerchantBankInfoUpdated } from '@pps/shared/contract';
import { withTransaction } from '@pps/shared/db';
import { addBankAccountVersion, type BankAccountInput } from '../model/bank-accounts.repository';
import { assertNotClosed, recordMerchantEvent, requireMerchant } from '../model/merchants.access';
import { bankInfoUpdated } from '../model/merchants.presenter';
import { updateMerchantRow } from '../model/merchants.repository';
import type { MerchantsContext } from '../model/merchants.secrets';

/**
 * A new bank account version: new deposits go to it, those already pending keep the version they
 * snapshotted (the old row stays, superseded).
 */
export async function updateBankInfo({
  ctx,
  input,
}: {
  ctx: MerchantsContext;
  input: { merchantId: string; bankInfo: BankAccountInput };
}): Promise<MerchantBankInfoUpdated> {
  return withTransaction(ctx.db, async (tx) => {
    const current = await requireMerchant(tx, ctx, input.merchantId, { lock: true });
    assertNotClosed(current);
    const now = ctx.clock.now();
    const bank = await addBankAccountVersion(tx, ctx.secrets.cipher, {
      merchantId: current.id,
      bank: input.bankInfo,
      now,
    });
    const row = await updateMerchantRow(tx, current.id, { updatedAt: now });
    await recordMerchantEvent(tx, { type: 'merchant.updated', row, requestId: ctx.requestId });
    ctx.log.info({ merchantId: row.id, version: bank.version }, 'merchant bank account changed');
    return bankInfoUpdated(row.id, bank);
  });
}
