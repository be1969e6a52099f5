import type { ReservedSql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  findPayment,
  lockClaimsPart,
  lockPayments,
  recordClaimsPart,
} from '../../services/payments/src/payments/model/payments.repository';
import { accountClock, accountsAhead, dueRecords } from '../../services/payments/src/payments/settle/settle.repository';
import { claimUnrelayed, staleDeliveries } from '../../services/webhooks/src/relay/fan-out';
import { createMerchant } from '../fixtures/merchants';
import { createCardToken, createPayment, tokenv3Body } from '../fixtures/payments';
import { copyRow, rowsRead, statementOf } from '../fixtures/scans';
import { type Credentials, createTestStack, type TestStack } from '../harness';

/**
 * The background rounds (the outbox relay, the settlement pass, the stale-delivery sweep) read the few rows they
 * take, not the tables they take them from: each claim runs under EXPLAIN ANALYZE beside thousands of rows it must
 * not touch, and the rows its plan read from that table are counted. So do a payment's outcome and a read of a
 * payment in flight, which find its claim among the claims dead since the table's last vacuum, on a plan kept from
 * when it looked empty; their pages are counted. A plan that scans a table whole shows as a count in CI, never as a
 * time (docs/decisions.md, "Performance: scans that grew with the tables").
 */

/** Rows that were done with long ago, beside the few each claim should find. */
const BYSTANDERS = 4000;

let stack: TestStack;
let creds: Credentials;

beforeAll(async () => {
  stack = await createTestStack();
  creds = await stack.createAccount('Background scans');
});
afterAll(() => stack?.close());

/** How many rows the query's plan read from `table`, and how many it found. */
const rowsReadBy = (query: Parameters<typeof statementOf>[0], table: string) =>
  rowsRead(stack.sql, statementOf(query), table);

describe('what a background round reads', () => {
  it('the outbox relay reads the queued events, even with the queue analysed at a burst', async () => {
    // A burst: thousands of events queued, analysed there, then relayed. The statistics still say the queue is
    // large, as they do in production after any burst until autovacuum analyses it again.
    await stack.sql`
      insert into events (id, account_id, type, resource_type, resource_id, sequence, payload)
      select 'evt_burst' || lpad(i::text, 6, '0'), ${creds.accountId}, 'payment.created', 'payment',
        'pay_burst' || i, 1, '{}'::jsonb
      from generate_series(1, ${BYSTANDERS}) i`;
    await stack.sql`insert into unrelayed_events (event_id) select id from events where id like 'evt_burst%'`;
    await stack.sql`analyze events`;
    await stack.sql`analyze unrelayed_events`;
    await stack.sql`delete from unrelayed_events`;
    // Three new events queued; their ids sort after every other, as new ids do.
    await stack.sql`
      insert into events (id, account_id, type, resource_type, resource_id, sequence, payload)
      select 'evt_new' || i, ${creds.accountId}, 'payment.created', 'payment', 'pay_new' || i, 1, '{}'::jsonb
      from generate_series(1, 3) i`;
    await stack.sql`insert into unrelayed_events (event_id) select id from events where id like 'evt_new%'`;

    expect(await rowsRead(stack.sql, claimUnrelayed(500), 'events')).toEqual({ read: 3, found: 3 });
  });

  describe('the settlement pass', () => {
    /** Runs a claim of the pass as it would: every account by the real clock, or one account by its own. */
    const claim = async (input: { limit: number; accountId?: string }) => {
      const now = new Date();
      const clock = input.accountId ? await accountClock(stack.db, input.accountId, now) : now;
      return rowsReadBy(dueRecords(stack.db, { clock: clock!, ...input }), 'payments');
    };
    let template: string;
    /**
     * Copies of a real record: settled at `settledAt` (completed) or not yet, in another account with `accountId`,
     * with another `status` when given.
     */
    const copy = (
      prefix: string,
      count: number,
      settleAt: Date,
      settledAt: Date | null,
      accountId?: string,
      status?: string,
    ) =>
      copyRow(
        stack.sql,
        { table: 'payments', id: template },
        {
          prefix,
          count,
          set: {
            request_id: null,
            settle_at: settleAt,
            settled_at: settledAt,
            ...(settledAt ? { status: 'completed' } : {}),
            ...(accountId ? { account_id: accountId } : {}),
            ...(status ? { status } : {}),
          },
        },
      );
    const DAY = 86_400_000;
    const fromNow = (ms: number) => new Date(Date.now() + ms);

    beforeAll(async () => {
      const [merchantId, tokenId] = await Promise.all([createMerchant(stack, creds), createCardToken(stack, creds)]);
      template = (await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId }))).body.data.id;
      // As a table looks in production: mostly history settled long ago, the records of the last days waiting
      // (the template itself settles in two business days, these in a week), and three that fell due an hour ago.
      await copy('pay_history', 2 * BYSTANDERS, fromNow(-30 * DAY), fromNow(-30 * DAY));
      await copy('pay_later', BYSTANDERS, fromNow(7 * DAY), null);
      await copy('pay_due', 3, fromNow(-3_600_000), null);
      // Due long ago and never to settle: voided payments and returned ACH debits keep their settle_at.
      await copy('pay_voided', BYSTANDERS, fromNow(-30 * DAY), null, undefined, 'voided');
      await copy('pay_returned', BYSTANDERS, fromNow(-30 * DAY), null, undefined, 'failed');
      await stack.sql`analyze payments`;
    });

    it('reads the due records, not every unsettled one, nor the voided and returned ones that never settle', async () => {
      expect(await claim({ limit: 500 })).toEqual({ read: 3, found: 3 });
      expect(await claim({ limit: 500, accountId: creds.accountId })).toEqual({ read: 3, found: 3 });
    });

    it("an account whose sandbox clock is ahead reads its own due records, not everyone's up to its clock", async () => {
      const ahead = await stack.createAccount('Clock ahead');
      await stack.sql`update accounts set clock_offset_seconds = ${10 * 86_400} where id = ${ahead.accountId}`;
      // Its history settled long ago, and two records due by its clock, not by the real one.
      await copy('pay_ahead_history', BYSTANDERS, fromNow(-30 * DAY), fromNow(-30 * DAY), ahead.accountId);
      await copy('pay_ahead', 2, fromNow(5 * DAY), null, ahead.accountId);
      await stack.sql`analyze payments`;

      expect(await accountsAhead(stack.db)).toEqual([ahead.accountId]);
      expect(await claim({ limit: 500, accountId: ahead.accountId })).toEqual({ read: 2, found: 2 });
      // By the real clock, which no account's is behind: still only the three due everywhere.
      expect(await claim({ limit: 500 })).toEqual({ read: 3, found: 3 });
    });

    it('reads one batch when a whole day falls due at the same midnight', async () => {
      // Every record of a processing day settles at the same Pacific midnight: the due rows tie on settle_at, and
      // the batch's order (settle_at, id) must come from the index, not from sorting the day.
      await stack.sql`update payments set settle_at = now() - interval '1 hour' where id like 'pay_later%'`;
      await stack.sql`analyze payments`;
      expect(await claim({ limit: 100 })).toEqual({ read: 100, found: 100 });
    });
  });

  describe('the claims of payments in flight', () => {
    const outcome = {
      status: 'pending',
      code: '0',
      message: 'Approved',
      authCode: 'A00001',
      avsResult: null,
      card: null,
      settleAt: null,
      authorizationExpiresAt: null,
      failedAt: null,
      updatedAt: new Date(),
    } as const;
    const plain = 'select * from payment_claims where id = any($1) order by id for update';
    /** The plain statement's text for an attempt: a text of its own is prepared anew, its plan made then. */
    let plainAttempt = 1;
    const statements = {
      plain: (ids: string[]) => ({ text: `${plain} /* attempt ${plainAttempt} */`, params: [ids] }),
      lock: (ids: string[]) => lockClaimsPart(ids),
      record: (ids: string[]) => recordClaimsPart(ids.map((id) => ({ id, outcome }))),
      read: (ids: string[]) => ({ text: 'select * from pps_claims($1)', params: [ids] }),
    };
    /** A connection of its own, whose prepared statements keep the generic plans they made on an empty table. */
    let kept: ReservedSql;
    const run = (statement: { text: string; params: unknown[] }) =>
      kept.unsafe(statement.text, statement.params as never[], { prepare: true });
    /** The pages of the claims table and its key that `statement` read, run on its kept plan. */
    async function claimBlocks(statement: { text: string; params: unknown[] }) {
      const read = async () => {
        const [row] = await kept`select pg_stat_get_xact_blocks_fetched('payment_claims'::regclass)
          + pg_stat_get_xact_blocks_fetched('payment_claims_pkey'::regclass) as blocks`;
        return Number(row?.blocks);
      };
      await kept`begin`;
      try {
        const before = await read();
        await run(statement);
        return (await read()) - before;
      } finally {
        await kept`commit`;
      }
    }

    beforeAll(async () => {
      const [merchantId, tokenId] = await Promise.all([createMerchant(stack, creds), createCardToken(stack, creds)]);
      const template = (await createPayment(stack, creds, tokenv3Body({ merchantId, tokenId }))).body.data.id;
      // The table as a vacuum leaves it: its live claims only, and statistics that say so. Each statement is
      // prepared then, on a connection that keeps generic plans, as a long-lived pool connection does.
      await stack.sql`vacuum analyze payment_claims`;
      kept = await stack.sql.reserve();
      await kept`set plan_cache_mode = force_generic_plan`;
      for (const statement of Object.values(statements)) await run(statement(['pay_none']));
      // Then claims are recorded, as phase 3 records them, and their rows stay, dead, until the next vacuum.
      // The row is made once, in FROM: `(jsonb_populate_record(…)).*` in the select list made it once per column,
      // about 40 times a row, which under the whole suite ran past the statement timeout.
      claim = (prefix: string, count: number) => stack.sql`
        insert into payment_claims
        select claim.*
        from payments t, generate_series(1, ${BYSTANDERS}::int) i,
          jsonb_populate_record(null::payment_claims, to_jsonb(t) || jsonb_build_object('id', ${prefix} || i,
            'status', 'processing', 'settle_at', null, 'processing_since', now())) claim
        where t.id = ${template} and i <= ${count}`;
      await recordedClaims();
      await claim('pay_in_flight', 2);
    });
    afterAll(() => kept?.release());
    let claim: (prefix: string, count: number) => Promise<unknown>;
    const recordedClaims = async () => {
      await claim('pay_recorded', BYSTANDERS);
      await stack.sql`delete from payment_claims where id like 'pay_recorded%'`;
    };

    it('a plan kept from when the table looked empty reads every dead claim: why claims are read by functions', async () => {
      // A kept plan is made again when the backend's caches are reset: under the whole suite, its connection idle
      // while other databases are made and migrated, the shared invalidation queue can overflow, and the plan made
      // again sees the dead rows' pages and reads by the key. Then the demonstration is set up again, as before.
      let blocks = await claimBlocks(statements.plain(['pay_in_flight1']));
      while (blocks <= 100 && plainAttempt < 3) {
        plainAttempt++;
        await stack.sql`delete from payment_claims where id like 'pay_in_flight%'`;
        await stack.sql`vacuum analyze payment_claims`;
        await run(statements.plain(['pay_none']));
        await recordedClaims();
        await claim('pay_in_flight', 2);
        blocks = await claimBlocks(statements.plain(['pay_in_flight1']));
      }
      expect(blocks).toBeGreaterThan(100);
    });

    it("a payment's outcome locks its own claim, then records it from the claim, and reads no other", async () => {
      expect(await claimBlocks(statements.lock(['pay_in_flight1']))).toBeLessThanOrEqual(6);
      expect(await claimBlocks(statements.record(['pay_in_flight1']))).toBeLessThanOrEqual(6);
      // Recorded once, from its claim, which is gone.
      expect(await stack.sql`select status, code from payments where id = 'pay_in_flight1'`).toEqual([
        { status: 'pending', code: '0' },
      ]);
      expect(await stack.sql`select 1 from payment_claims where id = 'pay_in_flight1'`).toHaveLength(0);
    });

    it('a read of a payment not in payments (in flight, or none) reads its claim by key', async () => {
      expect(await claimBlocks(statements.read(['pay_in_flight2']))).toBeLessThanOrEqual(6);
      const found = await stack.db.transaction((tx) =>
        Promise.all([
          findPayment(tx, 'pay_in_flight2'),
          findPayment(tx, 'pay_none'),
          lockPayments(tx, ['pay_in_flight2']),
        ]),
      );
      expect([found[0]?.status, found[1], found[2].map((payment) => payment.status)]).toEqual([
        'processing',
        undefined,
        ['processing'],
      ]);
    });
  });

  it('the stale sweep reads the deliveries in flight, not every delivery ever made nor those leased', async () => {
    const [endpoint] = await stack.sql`
      insert into webhook_endpoints (id, account_id, url, events, secret_enc, created_at, updated_at)
      values ('whk_scans', ${creds.accountId}, 'https://receiver.example.com/hooks', '["*"]', 'unused', now(), now())
      returning id`;
    const delivery = (prefix: string, count: number, status: string, leasedUntil: string | null = null) => stack.sql`
      insert into webhook_deliveries (id, account_id, endpoint_id, event_id, status, enqueued_at, leased_until,
        created_at, updated_at)
      select ${prefix} || i, ${creds.accountId}, ${endpoint!.id}, ${prefix} || i, ${status},
        now() - interval '1 day', ${leasedUntil}::timestamptz, now() - interval '1 day', now() - interval '1 day'
      from generate_series(1, ${count}) i`;
    await delivery('dlv_done', BYSTANDERS, 'succeeded');
    // First attempts in flight in a relay's process: pending, marked enqueued (no job is wanted), leased.
    await delivery('dlv_leased', BYSTANDERS, 'pending', new Date(Date.now() + 60_000).toISOString());
    await delivery('dlv_stuck', 1, 'pending');
    await stack.sql`analyze webhook_deliveries`;

    expect(await rowsReadBy(staleDeliveries(stack.db, new Date(), 500), 'webhook_deliveries')).toEqual({
      read: 1,
      found: 1,
    });
  });
});
