import { createDataCipher, runPayouts, SandboxProcessor } from '@pps/payments';
import { runSettlementPass } from '@pps/settlement';
import { addBusinessDays, pacificDate, startOfPacificDay } from '@pps/shared/clock';
import { createLogger } from '@pps/shared/logger';
import { expect } from 'vitest';
import {
  businessMerchantAttributes,
  createBusinessMerchant,
  createMerchant,
  personalMerchantAttributes,
  uniqueEin,
  uniqueSsn,
} from '../../fixtures/merchants';
import { createCardToken, createPayment, setClock, tokenv3Body } from '../../fixtures/payments';
import type { Credentials, TestStack } from '../../harness';

/** The shop's secrets, as created: the merchant pages must never show them. */
export const SHOP_SSN = uniqueSsn();
export const SHOP_EIN = uniqueEin();
export const SHOP_ACCOUNT_NUMBER = '000987654321';
/** A bank account the sandbox bank returns (R01): a payout to it fails. */
const RETURNED_ACCOUNT_NUMBER = '000000005501';

const log = createLogger({ level: 'silent' });

/**
 * What the settlement worker runs when an account's clock moves (settlement, then payouts), run here in-process so
 * the test waits on nothing: the stack needs no settlement workers.
 */
async function clockPass(stack: TestStack, as: Credentials) {
  const deps = {
    db: stack.db,
    config: stack.config,
    cipher: createDataCipher(stack.config),
    processor: new SandboxProcessor({ db: stack.db }),
    bank: new SandboxProcessor({ db: stack.db }),
    log,
  };
  await runSettlementPass(deps, { now: new Date(), batchSize: 100, accountId: as.accountId });
  return runPayouts(deps, { now: new Date(), accountId: as.accountId });
}

/** Moves the account's clock to one second past midnight Pacific of `day` and runs the passes. */
async function dayPass(stack: TestStack, as: Credentials, day: string) {
  await setClock(stack, as, new Date(startOfPacificDay(day).getTime() + 1000));
  return clockPass(stack, as);
}

/**
 * The merchants and payouts the console's Merchants and Payouts pages show: a business merchant named `shopName`
 * (the daily schedule) paid 100.00 and 50.00 by card, and, unless `returned` is false, a merchant whose bank returns
 * its deposit, paid 20.00. The account's clock is moved to the settlement day (settled, then paid out: a NACHA file,
 * a trace number each), then a business day on (the shop's payout paid, the other failed, R01).
 */
export async function payoutsWorld(
  stack: TestStack,
  as: Credentials,
  options: { shopName: string; returned?: boolean },
) {
  const business = businessMerchantAttributes();
  const shopId = await createBusinessMerchant(stack, as, {
    accountName: options.shopName,
    personalInfo: { ...business.personalInfo, socialSecurity: SHOP_SSN },
    businessInfo: { ...business.businessInfo, ein: SHOP_EIN },
  });
  const returnedId =
    options.returned === false
      ? undefined
      : await createMerchant(stack, as, {
          accountName: 'Returned Deposits',
          bankInfo: { ...personalMerchantAttributes().bankInfo, accountNumber: RETURNED_ACCOUNT_NUMBER },
        });
  const tokenId = await createCardToken(stack, as);
  const paid = [];
  for (const [merchantId, amount] of [
    [shopId, '10000'],
    [shopId, '5000'],
    [returnedId, '2000'],
  ] as const) {
    if (!merchantId) continue;
    paid.push((await createPayment(stack, as, tokenv3Body({ merchantId, tokenId, amount }))).body.data);
  }
  const settlementDay = pacificDate(
    new Date(Math.max(...paid.map((payment) => new Date(payment.attributes.settleAt).getTime()))),
  );
  const made = await dayPass(stack, as, settlementDay);
  expect(made.created.count).toBe(returnedId ? 2 : 1);
  const ended = await dayPass(stack, as, addBusinessDays(settlementDay, 1));
  expect(ended.paid.count).toBe(1);
  expect(ended.failed.count).toBe(returnedId ? 1 : 0);

  const payoutOf = async (merchantId: string) => {
    const listed = await stack.call('GET', `/payouts?merchantId=${merchantId}`, { as });
    expect(listed.body.data).toHaveLength(1);
    return listed.body.data[0].id as string;
  };
  return {
    shopId,
    shopPayoutId: await payoutOf(shopId),
    returnedId,
    returnedPayoutId: returnedId ? await payoutOf(returnedId) : undefined,
    paymentIds: paid.map((payment) => payment.id as string),
  };
}
