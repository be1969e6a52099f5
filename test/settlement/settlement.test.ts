import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { readNachaTotals } from '@pps/shared/ach';
import { addBusinessDays, pacificDate, startOfPacificDay } from '@pps/shared/clock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  achBody,
  createPayment,
  postPayment,
  refundBody,
  refundSplitBody,
  setClock,
  splitBody,
  tokenv3Body,
} from '../fixtures/payments';
import { createWorld } from '../fixtures/world';
import { type Credentials, createTestStack, type TestStack } from '../harness';
import { waitFor } from '../wait';

/**
 * Settlement through the public API: the settlement workers run beside the API with their own BullMQ prefix,
 * and moving an account's sandbox clock enqueues a pass for it, so records settle within moments.
 */

/** The backfill of returns settled before the pass wrote their code and message. */
const ACH_RETURN_MIGRATION = '../../packages/shared/drizzle/0014_ach_return_outcome.sql';

let stack: TestStack;
beforeAll(async () => {
  stack = await createTestStack({ settlement: true, webhooks: true });
});
afterAll(() => stack?.close());

type Setup = { creds: Credentials; merchantId: string; splitMerchantId: string; tokenId: string };

/**
 * A fresh account (its own clock) with two merchants and a card token. Their payout schedules are manual: a moved
 * clock also runs the account's payouts, which would pay out the available balances these tests read
 * (test/payouts/run.test.ts tests that).
 */
async function freshAccount(): Promise<Setup> {
  const { creds, merchantId, partnerIds, tokenId } = await createWorld(stack, { partners: ['Partner'] });
  await stack.sql`update payout_schedules set interval = 'manual' where account_id = ${creds.accountId}`;
  return { creds, merchantId, splitMerchantId: partnerIds[0], tokenId };
}

const get = (creds: Credentials, id: string) => stack.call('GET', `/payments/${id}`, { as: creds });

const statusOf = async (creds: Credentials, id: string) => (await get(creds, id)).body.data.attributes;
/** The payment's attributes once the pass (in a worker) has moved it to `status` and settled it. */
const settledStatus = (creds: Credentials, id: string, status: string) =>
  waitFor(() => statusOf(creds, id), {
    until: (attributes) => attributes.status === status && attributes.settledAt !== null,
    what: `${id} ${status} and settled`,
  });

const balance = async (ledgerAccount: string) =>
  Number(
    (
      await stack.sql`select coalesce(sum(amount), 0)::int as total from ledger_entries where ledger_account = ${ledgerAccount}`
    )[0]!.total,
  );

describe('card settlement', () => {
  it('stays pending until one business day after the processing day, then completes within moments', async () => {
    const { creds, merchantId, splitMerchantId, tokenId } = await freshAccount();
    const res = await createPayment(
      stack,
      creds,
      splitBody({ merchantId, tokenId, splitMerchantId, amount: '10000', splitAmount: '1000' }),
    );
    const { id, attributes } = res.body.data;
    const settleAt = new Date(attributes.settleAt);
    expect(settleAt.toISOString()).toBe(
      startOfPacificDay(addBusinessDays(pacificDate(new Date(attributes.createdAt)), 1)).toISOString(),
    );

    // A minute before settleAt nothing moves, even after a pass.
    await setClock(stack, creds, new Date(settleAt.getTime() - 60_000));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await statusOf(creds, id)).status).toBe('pending');

    await setClock(stack, creds, new Date(settleAt.getTime() + 1000));
    const settled = await settledStatus(creds, id, 'completed');
    expect(new Date(settled.settledAt).getTime()).toBeGreaterThanOrEqual(settleAt.getTime());
    expect(settled.splits[0]).toMatchObject({ status: 'completed' });

    // Net 10000 − 320 − 1000 = 8680 to the primary, 1000 to the split merchant, now available.
    expect(await balance(`merchant:${merchantId}:pending`)).toBe(0);
    expect(await balance(`merchant:${merchantId}:available`)).toBe(8680);
    expect(await balance(`merchant:${splitMerchantId}:available`)).toBe(1000);
    const events = await stack.sql`select type, payload from events where resource_id = ${id} order by sequence`;
    expect(events.map((event) => event.type)).toEqual(['payment.created', 'payment.completed']);
    expect(events[1]!.payload.data).toMatchObject({ previousStatus: 'pending', attributes: { status: 'completed' } });

    const batches = await stack.sql`
      select merchant_id, settlement_date, count, gross::int, fees::int, refunds::int, net::int
      from settlement_batches where account_id = ${creds.accountId} order by net desc`;
    expect(batches).toEqual([
      {
        merchant_id: merchantId,
        settlement_date: pacificDate(settleAt),
        count: 1,
        gross: 10000,
        fees: 320,
        refunds: 0,
        net: 8680,
      },
      {
        merchant_id: splitMerchantId,
        settlement_date: pacificDate(settleAt),
        count: 1,
        gross: 0,
        fees: 0,
        refunds: 0,
        net: 1000,
      },
    ]);
  });

  it('settles refund records with their parent; a partly refunded parent keeps its status and records settledAt', async () => {
    const { creds, merchantId, splitMerchantId, tokenId } = await freshAccount();
    const parent = (
      await createPayment(
        stack,
        creds,
        splitBody({ merchantId, tokenId, splitMerchantId, amount: '5000', splitAmount: '500' }),
      )
    ).body.data;
    const refund = (await postPayment(stack, creds, refundBody(parent.id, '1000'))).body.data;
    const splitRefund = (await postPayment(stack, creds, refundSplitBody(parent.id, '200'))).body.data;
    expect((await statusOf(creds, parent.id)).status).toBe('partial_refund');

    await setClock(stack, creds, new Date(new Date(refund.attributes.settleAt).getTime() + 1000));
    await settledStatus(creds, refund.id, 'completed');
    await settledStatus(creds, splitRefund.id, 'completed');
    const settledParent = await settledStatus(creds, parent.id, 'partial_refund');
    expect(settledParent.refunds.map((item: { status: string }) => item.status)).toEqual(['completed', 'completed']);

    // Fees 175: primary net 5000 − 175 − 500 = 4325, less the 1000 refunded; the partner keeps 300.
    expect(await balance(`merchant:${merchantId}:pending`)).toBe(0);
    expect(await balance(`merchant:${merchantId}:available`)).toBe(3325);
    expect(await balance(`merchant:${splitMerchantId}:pending`)).toBe(0);
    expect(await balance(`merchant:${splitMerchantId}:available`)).toBe(300);
    const types = await stack.sql`select type from events where resource_id = ${parent.id} order by sequence`;
    expect(types.map((row) => row.type)).toEqual([
      'payment.created',
      'payment.partially_refunded',
      'payment.partially_refunded',
    ]);
    const refundEvents = await stack.sql`select type from events where resource_id = ${refund.id} order by sequence`;
    expect(refundEvents.map((row) => row.type)).toEqual(['payment.created', 'payment.completed']);
  });

  it('never settles a voided payment', async () => {
    const { creds, merchantId, tokenId } = await freshAccount();
    const { id, attributes } = (await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId }))).body.data;
    expect((await postPayment(stack, creds, refundBody(id, '1000'))).body.data.attributes.transaction.refundType).toBe(
      'void',
    );
    await setClock(stack, creds, new Date(new Date(attributes.settleAt).getTime() + 1000));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await statusOf(creds, id)).toMatchObject({ status: 'voided', settledAt: null });
    expect(await balance(`merchant:${merchantId}:available`)).toBe(0);
  });
});

describe('ACH settlement', () => {
  it('completes after 3 business days, returns R01–R04 by amount, and writes the NACHA file', async () => {
    const { creds, merchantId } = await freshAccount();
    const amounts = ['2000', '5501', '5502', '5503', '5504'];
    const created = [];
    for (const amount of amounts)
      created.push((await createPayment(stack, creds, achBody({ merchantId, amount }))).body.data);
    const settleAt = new Date(created[0].attributes.settleAt);
    expect(settleAt.toISOString()).toBe(
      startOfPacificDay(addBusinessDays(pacificDate(new Date(created[0].attributes.createdAt)), 3)).toISOString(),
    );

    // One business day later nothing has settled.
    const afterOneDay = startOfPacificDay(addBusinessDays(pacificDate(new Date(created[0].attributes.createdAt)), 1));
    await setClock(stack, creds, new Date(afterOneDay.getTime() + 1000));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await statusOf(creds, created[0].id)).status).toBe('pending');

    await setClock(stack, creds, new Date(settleAt.getTime() + 1000));
    await settledStatus(creds, created[0].id, 'completed');
    // Each return says itself in the transaction (code and message, not the acceptance), on every view and event.
    const returns = [
      { returnCode: 'R01', code: 'R01', message: 'Insufficient funds' },
      { returnCode: 'R02', code: 'R02', message: 'Account closed' },
      { returnCode: 'R03', code: 'R03', message: 'No account/unable to locate account' },
      { returnCode: 'R04', code: 'R04', message: 'Invalid account number structure' },
    ];
    for (const [index, payment] of created.slice(1).entries()) {
      const returned = await waitFor(() => statusOf(creds, payment.id), {
        until: (attributes) => attributes.status === 'failed',
        what: `${payment.id} failed`,
      });
      expect(returned.transaction).toMatchObject(returns[index]!);
      expect(returned.settledAt).toBeNull();
      const status = await stack.call('GET', `/payments/status/${payment.id}`, { as: creds });
      expect(status.status).toBe(200);
      expect(status.body.data.attributes.status).toBe('failed');
      const [event] = await stack.sql`
        select payload from events where resource_id = ${payment.id} and type = 'payment.failed'`;
      expect(event!.payload.data.attributes).toMatchObject({ status: 'failed', transaction: returns[index] });
      expect(event!.payload.data.attributes.transaction).toEqual(returned.transaction);
      expect(event!.payload.data.previousStatus).toBe('pending');
    }
    // The merchant's list says the same (its order among records made in one millisecond is the ids').
    const failed = await stack.call('GET', `/payments?id=${merchantId}&status=failed`, { as: creds });
    type Listed = { attributes: { transaction: { code: string; message: string } } };
    const said = failed.body.data.map(
      ({ attributes: { transaction } }: Listed) => `${transaction.code} ${transaction.message}`,
    );
    expect(said.sort()).toEqual(returns.map(({ code, message }) => `${code} ${message}`));
    // The returns reversed their captures: only the settled debit's net is the merchant's, and available.
    expect(await balance(`merchant:${merchantId}:pending`)).toBe(0);
    expect(await balance(`merchant:${merchantId}:available`)).toBe(1912);

    const [row] = await stack.sql`select ach_file_id from payments where id = ${created[0].id}`;
    const fileId = row!.ach_file_id as string;
    expect(fileId).toMatch(/^ach_/);
    const list = await stack.call('GET', '/admin/ach-files?limit=100', { headers: stack.admin });
    expect(list.status).toBe(200);
    const listed = list.body.data.find((file: { id: string }) => file.id === fileId);
    expect(listed.attributes).toMatchObject({ entryCount: 1, totalDebit: '2000', totalCredit: '0' });
    expect(listed.attributes.paymentIds).toEqual([created[0].id]);

    const file = await stack.call('GET', `/admin/ach-files/${fileId}`, { headers: stack.admin });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toContain('text/plain');
    const text = file.body as string;
    const lines = text.trimEnd().split('\n');
    expect(lines.every((line) => line.length === 94)).toBe(true);
    expect(lines.length % 10).toBe(0);

    // Read by a published NACHA parser, not only by our own reader.
    const nacha = createRequire(import.meta.url)('@midlandsbank/node-nacha');
    const parsed = nacha.from(text).data;
    const entries = parsed.batches.flatMap((batch: { entries: unknown[] }) => batch.entries);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ transactionCode: '27', amount: 2000, dfiAccount: '000123456789' });
    expect(parsed.batches[0]).toMatchObject({ entryClassCode: 'WEB', description: 'PAYMENT' });
    expect(parsed.file.footer).toMatchObject({ totalDebit: 2000, totalCredit: 0, entryAndAddendaCount: 1 });
    expect(readNachaTotals(text)).toMatchObject({
      entryCount: 1,
      totalDebit: 2000,
      totalCredit: 0,
      entryHash: 2100002,
    });

    expectAdminRefusal(await stack.call('GET', `/admin/ach-files/${fileId}`, { as: creds }));
    expect((await stack.call('GET', '/admin/ach-files/ach_unknown', { headers: stack.admin })).status).toBe(404);
  });

  it('gives a return recorded before the pass wrote code and message its return there (migration 0014)', async () => {
    const { creds, merchantId } = await freshAccount();
    const debit = (await createPayment(stack, creds, achBody({ merchantId, amount: '5502' }))).body.data;
    await setClock(stack, creds, new Date(new Date(debit.attributes.settleAt).getTime() + 1000));
    await waitFor(() => statusOf(creds, debit.id), {
      until: (attributes) => attributes.status === 'failed',
      what: `${debit.id} failed`,
    });
    // As such a row was left: failed with its return code, the acceptance still in code and message.
    await stack.sql`update payments set code = '0', message = 'Accepted' where id = ${debit.id}`;
    await stack.sql.unsafe(readFileSync(new URL(ACH_RETURN_MIGRATION, import.meta.url), 'utf8'));
    expect((await statusOf(creds, debit.id)).transaction).toMatchObject({
      returnCode: 'R02',
      code: 'R02',
      message: 'Account closed',
    });
  });

  it('credits an ACH refund back to the account in the next file', async () => {
    const { creds, merchantId } = await freshAccount();
    const debit = (await createPayment(stack, creds, achBody({ merchantId, amount: '3000' }))).body.data;
    await setClock(stack, creds, new Date(new Date(debit.attributes.settleAt).getTime() + 1000));
    await settledStatus(creds, debit.id, 'completed');

    const refund = (await postPayment(stack, creds, refundBody(debit.id, '1200'))).body.data;
    expect(refund.attributes).toMatchObject({ status: 'pending', transaction: { refundType: 'refund' } });
    await setClock(stack, creds, new Date(new Date(refund.attributes.settleAt).getTime() + 1000));
    await settledStatus(creds, refund.id, 'completed');
    expect(await balance(`merchant:${merchantId}:available`)).toBe(3000 - 117 - 1200);

    const [row] = await stack.sql`select ach_file_id from payments where id = ${refund.id}`;
    const file = await stack.call('GET', `/admin/ach-files/${row!.ach_file_id}`, { headers: stack.admin });
    expect(readNachaTotals(file.body)).toMatchObject({ entryCount: 1, totalDebit: 0, totalCredit: 1200 });
    const parsed = createRequire(import.meta.url)('@midlandsbank/node-nacha').from(file.body).data;
    expect(parsed.batches[0]).toMatchObject({ description: 'REFUND' });
    expect(parsed.batches[0].entries[0]).toMatchObject({ transactionCode: '22', amount: 1200 });
  });
});

function expectAdminRefusal(response: { status: number }) {
  expect(response.status).toBe(401);
}

describe('ops view of the queues', () => {
  it('serves bull-board at /admin/queues behind the admin token (Bearer, or Basic for a browser)', async () => {
    const refused = await stack.call('GET', '/admin/queues');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('Basic');
    const wrong = Buffer.from('ops:not-the-token').toString('base64');
    expect((await stack.call('GET', '/admin/queues', { headers: { authorization: `Basic ${wrong}` } })).status).toBe(
      401,
    );

    const basic = Buffer.from(`ops:${stack.config.ADMIN_TOKEN}`).toString('base64');
    const page = await stack.call('GET', '/admin/queues', { headers: { authorization: `Basic ${basic}` } });
    expect(page.status).toBe(200);
    expect(page.body).toContain('PPS queues');
    const api = await stack.call('GET', '/admin/queues/api/queues', { headers: stack.admin });
    expect(api.status).toBe(200);
    expect(api.body.queues.map((queue: { name: string }) => queue.name).sort()).toEqual([
      'maintenance',
      'settlement',
      'webhooks',
    ]);
  });

  it('exports queue depth, job counts, pass durations and settled records on /metrics', async () => {
    const text = (await stack.call('GET', '/metrics')).body as string;
    expect(text).toMatch(/pps_queue_jobs\{queue="settlement",state="completed"\} [1-9]/);
    expect(text).toMatch(/pps_queue_jobs\{queue="settlement",state="waiting"\} \d+/);
    expect(text).toMatch(/pps_settlement_pass_duration_seconds_count [1-9]/);
    expect(text).toMatch(/pps_settlement_records_total\{outcome="settled"\} [1-9]/);
    expect(text).toMatch(/pps_settlement_records_total\{outcome="returned"\} [1-9]/);
  });
});
