import { sql } from 'drizzle-orm';
import { type Db, withTransaction } from '../db/client';
import { listCounts } from '../db/schema/counts';
import { ledgerBalances, ledgerEntries } from '../db/schema/ledger';

/** A kept figure that is not what its rows say: a ledger account's balance, or a list's count of one bucket. */
export type KeptDifference =
  | { kind: 'balance'; ledgerAccount: string; kept: number; entries: number }
  | { kind: 'count'; list: string; scope: string; bucket: string; kept: number; rows: number };

export type KeptReport = { ledgerAccounts: number; listCounts: number; differences: KeptDifference[] };

/**
 * Checks every kept figure against the rows it stands for (`npm run cli -- ledger:verify`): each ledger account's
 * kept balance against the sum of its entries, and each list's kept counts against a count of its rows, on one
 * snapshot, in a read-only transaction (it writes nothing, and may run on a live database: it reads every entry and
 * listed row once). Differences are reported, never mended.
 */
export async function verifyKeptFigures(db: Db): Promise<KeptReport> {
  return withTransaction(db, async (tx) => {
    // First in the transaction: one snapshot for every read, and no write possible.
    await tx.execute(sql`set transaction isolation level repeatable read, read only`);
    const balances = await tx.execute<{ ledger_account: string; kept: string; entries: string; differs: boolean }>(
      // Written out: a full join of two grouped subqueries, which the builder does not write.
      sql`
          select ledger_account, coalesce(k.total, 0)::text as kept, coalesce(e.total, 0)::text as entries,
            coalesce(k.total, 0) <> coalesce(e.total, 0) as differs
          from (select ledger_account, sum(balance) as total from ${ledgerBalances} group by ledger_account) as k
          full join (select ledger_account, sum(amount) as total from ${ledgerEntries} group by ledger_account) as e
            using (ledger_account)`,
    );
    const counts = await tx.execute<{
      list: string;
      scope: string;
      bucket: string;
      kept: string;
      rows: string;
      differs: boolean;
    }>(sql`
        select list, scope, bucket, coalesce(k.total, 0)::text as kept, coalesce(r.total, 0)::text as rows,
          coalesce(k.total, 0) <> coalesce(r.total, 0) as differs
        from (select list, scope, bucket, sum(count) as total from ${listCounts} group by list, scope, bucket) as k
        full join (${COUNTED_ROWS}) as r using (list, scope, bucket)`);
    const differences: KeptDifference[] = [
      ...balances
        .filter((row) => row.differs)
        .map((row) => ({
          kind: 'balance' as const,
          ledgerAccount: row.ledger_account,
          kept: Number(row.kept),
          entries: Number(row.entries),
        })),
      ...counts
        .filter((row) => row.differs)
        .map((row) => ({
          kind: 'count' as const,
          list: row.list,
          scope: row.scope,
          bucket: row.bucket,
          kept: Number(row.kept),
          rows: Number(row.rows),
        })),
    ];
    return { ledgerAccounts: balances.length, listCounts: counts.length, differences };
  });
}

/** What each kept list count should be, counted from the rows (as migration 0024 computed them once). */
const COUNTED_ROWS = sql.raw(`
  select 'payments' as list, scope, status as bucket, count(*) as total from (
    select merchant_id, status from payments
    union all select split_merchant_id, status from payments where split_merchant_id <> merchant_id
  ) as listed(scope, status) where status <> 'processing' group by scope, status
  union all select 'payouts', merchant_id, status, count(*) from payouts group by merchant_id, status
  union all select 'account_payouts', account_id, status, count(*) from payouts group by account_id, status
  union all select 'merchants', account_id, status, count(*) from merchants group by account_id, status
  union all select 'disputes', merchant_id, status, count(*) from disputes group by merchant_id, status
  union all select 'account_disputes', account_id, status, count(*) from disputes group by account_id, status
  union all select 'balance_transactions', merchant_id, type, count(*) from balance_transactions
    group by merchant_id, type
  union all select 'events', account_id, type, count(*) from events group by account_id, type
  union all select 'webhook_deliveries', endpoint_id, 'all', count(*) from webhook_deliveries group by endpoint_id
  union all select 'requests', account_id, method || ' ' || status, count(*) from request_log
    group by account_id, method, status`);
