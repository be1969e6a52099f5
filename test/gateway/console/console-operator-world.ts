import { expect } from 'vitest';
import { achBody, createPayment, setClock, tokenv3Body } from '../../fixtures/payments';
import { manualSchedule } from '../../fixtures/payouts';
import { createWorld } from '../../fixtures/world';
import type { Credentials, TestStack } from '../../harness';
import { waitFor } from '../../wait';

/** The bank account the ACH debit is drawn on: the operator's pages must never show it. */
export const CUSTOMER_ACCOUNT_NUMBER = '000123456789';

/**
 * What the operator's pages have to show, made through the API on a stack running settlement: an account with a
 * merchant paid by card and by ACH debit, its clock moved past both settlements, so the day's pass settles them and
 * writes the NACHA file of the debit. Returns the account, its merchant, the settlement day and the file's id.
 */
export async function operatorWorld(stack: TestStack, name: string) {
  const world = await createWorld(stack, { account: name, token: true });
  const { creds, merchantId, tokenId } = world;
  await manualSchedule(stack, creds, merchantId);
  const debit = await createPayment(stack, creds, achBody({ merchantId, amount: '2000' }));
  const card = await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId: tokenId!, amount: '10000' }));
  const settleAt = Math.max(
    ...[debit, card].map((payment) => new Date(payment.body.data.attributes.settleAt).getTime()),
  );
  await setClock(stack, creds, new Date(settleAt + 1000));
  const [file] = await waitFor(
    () => stack.sql<{ id: string }[]>`select id from ach_files where payment_ids ? ${debit.body.data.id}`,
    { until: (rows) => rows.length === 1, what: 'the NACHA file of the ACH debit', timeoutMs: 30_000 },
  );
  await waitFor(
    async () =>
      (
        await stack.sql<{ n: number }[]>`
          select count(*)::int as n from payments where account_id = ${creds.accountId} and status = 'pending'`
      )[0]!.n,
    { until: (n) => n === 0, what: 'both payments settled', timeoutMs: 30_000 },
  );
  const [batch] = await stack.sql<{ settlement_date: string }[]>`
    select settlement_date from settlement_batches where merchant_id = ${merchantId}`;
  expect(batch).toBeDefined();
  return {
    creds: creds as Credentials,
    merchantId,
    day: batch!.settlement_date,
    fileId: file!.id,
    debitId: debit.body.data.id as string,
  };
}
