import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDataCipher, SandboxProcessor } from '@pps/payments';
import { runSettlementPass } from '@pps/settlement';
import { MIGRATIONS_FOLDER } from '@pps/shared/db';
import { keptBalances, ledgerAccounts, verifyKeptFigures } from '@pps/shared/ledger';
import { createLogger } from '@pps/shared/logger';
import { postgresUrl } from '@pps/shared/testing';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPayment, newRequestId, postPayment, refundBody, splitBody, tokenv3Body } from '../fixtures/payments';
import { createWorld } from '../fixtures/world';
import { type Credentials, createTestStack, type TestStack } from '../harness';

/**
 * Kept balances and list totals (docs/design.md, A merchant's history never slows the API), judged against the rows
 * they stand for: under concurrent payments, refunds and settlement passes on one merchant; after a migration that
 * computes them for an existing database; and by `verifyKeptFigures` (`npm run cli -- ledger:verify`), which must
 * see a difference and mend nothing.
 */

let stack: TestStack;
let creds: Credentials;
let merchantId: string;
let partnerId: string;
let tokenId: string;

beforeAll(async () => {
  // More connections than slots' worth of batches at once: concurrent batches move different slots and the same.
  stack = await createTestStack({ poolSize: 24 });
  ({
    creds,
    merchantId,
    partnerIds: [partnerId],
    tokenId,
  } = await createWorld(stack, { account: 'Kept figures', partners: ['Split partner'] }));
});
afterAll(() => stack?.close());

const DAY_MS = 86_400_000;
const entriesSum = async (ledgerAccount: string) =>
  Number(
    (
      await stack.sql`select coalesce(sum(amount), 0)::text as sum from ledger_entries
      where ledger_account = ${ledgerAccount}`
    )[0]!.sum,
  );

const settlementPass = (now: Date) =>
  runSettlementPass(
    {
      db: stack.db,
      config: stack.config,
      cipher: createDataCipher(stack.config),
      processor: new SandboxProcessor(),
      log: createLogger({ level: 'silent' }),
    },
    { now, batchSize: 7, accountId: creds.accountId },
  );

describe('kept balances and counts under concurrency', () => {
  it('payments, refunds and settlement passes on one merchant at once leave every kept figure equal to its rows', async () => {
    const pay = (amount: string) => tokenv3Body({ merchantId, tokenId, amount, requestId: newRequestId() });
    const split = (amount: string) =>
      splitBody({
        merchantId,
        tokenId,
        splitMerchantId: partnerId,
        amount,
        splitAmount: '100',
        requestId: newRequestId(),
      });
    const parents = await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        createPayment(stack, creds, index % 3 ? pay(String(1000 + index)) : split(String(1000 + index))),
      ),
    );
    const future = new Date(Date.now() + 5 * DAY_MS);
    for (let round = 0; round < 3; round++) {
      const results = await Promise.all([
        ...Array.from({ length: 40 }, (_, index) => postPayment(stack, creds, pay(String(500 + index)))),
        ...parents
          .slice(round * 10, round * 10 + 10)
          .map((parent) => postPayment(stack, creds, refundBody(parent.body.data.id, '300', newRequestId()))),
        // Three passes at once, in small batches, racing the writes above for the merchant's rows.
        settlementPass(future),
        settlementPass(future),
        settlementPass(future),
      ]);
      const statuses = results.flatMap((result) => ('status' in result ? [result.status] : []));
      expect(statuses.filter((status) => status !== 201)).toEqual([]);
    }
    await settlementPass(new Date(Date.now() + 10 * DAY_MS));

    expect((await verifyKeptFigures(stack.db)).differences).toEqual([]);
    const accounts = [
      ledgerAccounts.pending(merchantId),
      ledgerAccounts.available(merchantId),
      ledgerAccounts.pending(partnerId),
      ledgerAccounts.available(partnerId),
      ledgerAccounts.fees,
      ledgerAccounts.external('card'),
    ];
    const kept = await keptBalances(stack.db, accounts);
    for (const account of accounts) expect(kept.get(account), account).toBe(await entriesSum(account));
    // Settled: the money is available, and the balance GET reads the kept rows.
    expect(kept.get(ledgerAccounts.available(merchantId))).toBeGreaterThan(0);
    const balance = await stack.call('GET', `/merchants/${merchantId}/balance`, { as: creds });
    expect(balance.body.data.attributes).toMatchObject({
      pending: String(await entriesSum(ledgerAccounts.pending(merchantId))),
      available: String(await entriesSum(ledgerAccounts.available(merchantId))),
    });
    // The lists' totals follow the statuses the passes and refunds moved.
    const [counted] = await stack.sql`
      select count(*)::int as all, count(*) filter (where status = 'completed')::int as settled from payments
      where (merchant_id = ${merchantId} or split_merchant_id = ${merchantId}) and status <> 'processing'`;
    const list = await stack.call('GET', `/payments?id=${merchantId}&limit=1`, { as: creds });
    const settled = await stack.call('GET', `/payments?id=${merchantId}&status=completed&limit=1`, { as: creds });
    expect([list.body.meta.total, settled.body.meta.total]).toEqual([counted!.all, counted!.settled]);
    expect(counted!.settled).toBeGreaterThan(0);
  }, 60_000);
});

describe('ledger:verify (verifyKeptFigures)', () => {
  it('reports a kept balance or count that differs from its rows, and mends nothing', async () => {
    await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId, amount: '2500', requestId: newRequestId() }));
    expect((await verifyKeptFigures(stack.db)).differences).toEqual([]);
    const pending = ledgerAccounts.pending(merchantId);
    const truth = await entriesSum(pending);
    await stack.sql`update ledger_balances set balance = balance + 7
      where ledger_account = ${pending} and slot = (select min(slot) from ledger_balances where ledger_account = ${pending})`;
    await stack.sql`update list_counts set count = count - 1
      where list = 'payments' and scope = ${merchantId} and bucket = 'pending'
        and slot = (select min(slot) from list_counts where list = 'payments' and scope = ${merchantId} and bucket = 'pending')`;
    try {
      const report = await verifyKeptFigures(stack.db);
      expect(report.differences).toEqual(
        expect.arrayContaining([
          { kind: 'balance', ledgerAccount: pending, kept: truth + 7, entries: truth },
          expect.objectContaining({ kind: 'count', list: 'payments', scope: merchantId, bucket: 'pending' }),
        ]),
      );
      expect(report.differences).toHaveLength(2);
      // Read-only: the same differences are there afterwards.
      expect((await verifyKeptFigures(stack.db)).differences).toHaveLength(2);
    } finally {
      await stack.sql`update ledger_balances set balance = balance - 7
        where ledger_account = ${pending} and slot = (select min(slot) from ledger_balances where ledger_account = ${pending})`;
      await stack.sql`update list_counts set count = count + 1
        where list = 'payments' and scope = ${merchantId} and bucket = 'pending'
          and slot = (select min(slot) from list_counts where list = 'payments' and scope = ${merchantId} and bucket = 'pending')`;
    }
    expect((await verifyKeptFigures(stack.db)).differences).toEqual([]);
  });

  it('the ledger refuses an entry changed or removed, which no kept balance could follow', async () => {
    for (const statement of [
      stack.sql`update ledger_entries set amount = amount + 1`,
      stack.sql`delete from ledger_entries`,
      stack.sql`truncate ledger_entries`,
    ]) {
      await expect(statement).rejects.toMatchObject({ code: '23001' });
    }
  });
});

describe('migration 0024 on an existing database', () => {
  it('computes the balances and totals once from the rows already there', async () => {
    // The migrations up to 0023 only, from a copy of the folder with the journal cut there.
    const folder = mkdtempSync(join(tmpdir(), 'pps-migrations-'));
    const name = `pps_t_${inject('runId')}_migration`;
    const admin = postgres(postgresUrl('postgres'), { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists "${name}"`);
    await admin.unsafe(`create database "${name}"`);
    const sql = postgres(postgresUrl(name), { max: 1, onnotice: () => {} });
    try {
      cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
      const journalPath = join(folder, 'meta', '_journal.json');
      const journal = JSON.parse(readFileSync(journalPath, 'utf8'));
      const full = structuredClone(journal);
      journal.entries = journal.entries.filter((entry: { idx: number }) => entry.idx < 24);
      writeFileSync(journalPath, JSON.stringify(journal));
      await migrate(drizzle(sql), { migrationsFolder: folder });

      await sql`insert into accounts (id, name, api_key_hash, api_key_last4) values ('acct_old', 'Old', 'h', '0000')`;
      await sql`insert into ledger_entries (posting_id, account_id, payment_id, kind, ledger_account, amount, created_at)
        select 'lp_' || i, 'acct_old', 'pay_' || i, 'capture', line.account, line.amount, now()
        from generate_series(1, 50) as i,
          (values ('external:card', -1000), ('merchant:mer_old:pending', 941), ('operator:fees', 59)) as line(account, amount)`;
      await sql`insert into events (id, account_id, type, resource_type, resource_id, sequence, payload)
        select 'evt_' || i, 'acct_old', 'payment.created', 'payments', 'pay_' || i, 1, '{}' from generate_series(1, 5) as i`;

      writeFileSync(journalPath, JSON.stringify(full));
      await migrate(drizzle(sql), { migrationsFolder: folder });
      const balances = await sql`select ledger_account, sum(balance)::int as balance from ledger_balances
        group by ledger_account order by ledger_account`;
      expect(balances).toEqual([
        { ledger_account: 'external:card', balance: -50_000 },
        { ledger_account: 'merchant:mer_old:pending', balance: 47_050 },
        { ledger_account: 'operator:fees', balance: 2_950 },
      ]);
      const counts = await sql`select list, scope, bucket, sum(count)::int as count from list_counts
        group by list, scope, bucket`;
      expect(counts).toEqual([{ list: 'events', scope: 'acct_old', bucket: 'payment.created', count: 5 }]);
    } finally {
      await sql.end();
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
