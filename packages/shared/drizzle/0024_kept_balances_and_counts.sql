CREATE TABLE "list_counts" (
	"list" text NOT NULL,
	"scope" text NOT NULL,
	"bucket" text NOT NULL,
	"slot" smallint NOT NULL,
	"count" bigint NOT NULL,
	CONSTRAINT "list_counts_list_scope_bucket_slot_pk" PRIMARY KEY("list","scope","bucket","slot")
);
--> statement-breakpoint
CREATE TABLE "ledger_balances" (
	"ledger_account" text NOT NULL,
	"slot" smallint NOT NULL,
	"balance" bigint NOT NULL,
	CONSTRAINT "ledger_balances_ledger_account_slot_pk" PRIMARY KEY("ledger_account","slot")
);
--> statement-breakpoint
-- Kept balances and list totals (docs/design.md, A merchant's history never slows the API). Triggers move them in
-- the statement that writes the rows, so every writer keeps them in step, a group-committed batch included: one
-- delta per ledger account (per list scope and bucket) per statement, applied in key order. Each writes the row of
-- its connection's slot (pg_backend_pid() % 16): batches on other connections move other rows, so no account or
-- list is a single row that every batch waits on. Readers sum the slots.
CREATE FUNCTION pps_keep_ledger_balances() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ledger_balances (ledger_account, slot, balance)
  SELECT ledger_account, pg_backend_pid() % 16, sum(amount) FROM new_rows
  GROUP BY ledger_account ORDER BY ledger_account
  ON CONFLICT (ledger_account, slot) DO UPDATE SET balance = ledger_balances.balance + excluded.balance;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER ledger_entries_keep_balances AFTER INSERT ON ledger_entries
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pps_keep_ledger_balances();
--> statement-breakpoint
-- The ledger is append-only (a mistake is corrected by a reversing posting); a kept balance could not follow an
-- entry changed or removed, so the database refuses both.
CREATE FUNCTION pps_refuse_ledger_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger_entries is append-only: % refused', TG_OP USING ERRCODE = 'restrict_violation';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER ledger_entries_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON ledger_entries
  FOR EACH STATEMENT EXECUTE FUNCTION pps_refuse_ledger_change();
--> statement-breakpoint
-- Adds one statement's moves to the kept counts: the deltas netted per scope and bucket, in key order. PL/pgSQL,
-- not SQL: its statement is planned once per session, where a SQL function's is planned again at every call.
CREATE FUNCTION pps_move_counts(p_list text, p_scopes text[], p_buckets text[], p_deltas int[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO list_counts (list, scope, bucket, slot, count)
  SELECT p_list, moved.scope, moved.bucket, pg_backend_pid() % 16, sum(moved.delta)
  FROM unnest(p_scopes, p_buckets, p_deltas) AS moved(scope, bucket, delta)
  WHERE moved.scope IS NOT NULL
  GROUP BY moved.scope, moved.bucket HAVING sum(moved.delta) <> 0
  ORDER BY moved.scope, moved.bucket
  ON CONFLICT (list, scope, bucket, slot) DO UPDATE SET count = list_counts.count + excluded.count;
END;
$$;
--> statement-breakpoint
-- A truncated table's lists start again at zero (tests truncate; the platform never does).
CREATE FUNCTION pps_reset_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM list_counts WHERE list = ANY (TG_ARGV);
  RETURN NULL;
END;
$$;
--> statement-breakpoint
-- Payments: a merchant's records as primary, and as split receiver when the split names another merchant. A new
-- payment between its phases (`processing`) is internal and never listed, so it is not counted either: its phase-1
-- insert moves no count, and its outcome moves one.
CREATE FUNCTION pps_count_payments() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM pps_move_counts('payments', array_agg(scope), array_agg(bucket), array_agg(delta)) FROM (
      SELECT merchant_id, status, 1 FROM new_rows
      UNION ALL SELECT split_merchant_id, status, 1 FROM new_rows WHERE split_merchant_id <> merchant_id
    ) AS moved(scope, bucket, delta) WHERE bucket <> 'processing';
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM pps_move_counts('payments', array_agg(scope), array_agg(bucket), array_agg(delta)) FROM (
      SELECT merchant_id, status, 1 FROM new_rows
      UNION ALL SELECT split_merchant_id, status, 1 FROM new_rows WHERE split_merchant_id <> merchant_id
      UNION ALL SELECT merchant_id, status, -1 FROM old_rows
      UNION ALL SELECT split_merchant_id, status, -1 FROM old_rows WHERE split_merchant_id <> merchant_id
    ) AS moved(scope, bucket, delta) WHERE bucket <> 'processing';
  ELSE
    PERFORM pps_move_counts('payments', array_agg(scope), array_agg(bucket), array_agg(delta)) FROM (
      SELECT merchant_id, status, -1 FROM old_rows
      UNION ALL SELECT split_merchant_id, status, -1 FROM old_rows WHERE split_merchant_id <> merchant_id
    ) AS moved(scope, bucket, delta) WHERE bucket <> 'processing';
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER payments_count_insert AFTER INSERT ON payments
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pps_count_payments();
--> statement-breakpoint
CREATE TRIGGER payments_count_update AFTER UPDATE ON payments
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pps_count_payments();
--> statement-breakpoint
CREATE TRIGGER payments_count_delete AFTER DELETE ON payments
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION pps_count_payments();
--> statement-breakpoint
CREATE TRIGGER payments_count_truncate AFTER TRUNCATE ON payments
  FOR EACH STATEMENT EXECUTE FUNCTION pps_reset_counts('payments');
--> statement-breakpoint
-- Payouts: a merchant's, and its account's, by status.
CREATE FUNCTION pps_count_payouts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM pps_move_counts('payouts', array_agg(merchant_id), array_agg(status), array_agg(1)) FROM new_rows;
    PERFORM pps_move_counts('account_payouts', array_agg(account_id), array_agg(status), array_agg(1)) FROM new_rows;
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM pps_move_counts('payouts', array_agg(merchant_id), array_agg(status), array_agg(delta)) FROM (
      SELECT merchant_id, status, 1 FROM new_rows UNION ALL SELECT merchant_id, status, -1 FROM old_rows
    ) AS moved(merchant_id, status, delta);
    PERFORM pps_move_counts('account_payouts', array_agg(account_id), array_agg(status), array_agg(delta)) FROM (
      SELECT account_id, status, 1 FROM new_rows UNION ALL SELECT account_id, status, -1 FROM old_rows
    ) AS moved(account_id, status, delta);
  ELSE
    PERFORM pps_move_counts('payouts', array_agg(merchant_id), array_agg(status), array_agg(-1)) FROM old_rows;
    PERFORM pps_move_counts('account_payouts', array_agg(account_id), array_agg(status), array_agg(-1)) FROM old_rows;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER payouts_count_insert AFTER INSERT ON payouts
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pps_count_payouts();
--> statement-breakpoint
CREATE TRIGGER payouts_count_update AFTER UPDATE ON payouts
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pps_count_payouts();
--> statement-breakpoint
CREATE TRIGGER payouts_count_delete AFTER DELETE ON payouts
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION pps_count_payouts();
--> statement-breakpoint
CREATE TRIGGER payouts_count_truncate AFTER TRUNCATE ON payouts
  FOR EACH STATEMENT EXECUTE FUNCTION pps_reset_counts('payouts', 'account_payouts');
--> statement-breakpoint
-- Merchants: an account's, by status.
CREATE FUNCTION pps_count_merchants() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM pps_move_counts('merchants', array_agg(account_id), array_agg(status), array_agg(1)) FROM new_rows;
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM pps_move_counts('merchants', array_agg(account_id), array_agg(status), array_agg(delta)) FROM (
      SELECT account_id, status, 1 FROM new_rows UNION ALL SELECT account_id, status, -1 FROM old_rows
    ) AS moved(account_id, status, delta);
  ELSE
    PERFORM pps_move_counts('merchants', array_agg(account_id), array_agg(status), array_agg(-1)) FROM old_rows;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER merchants_count_insert AFTER INSERT ON merchants
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pps_count_merchants();
--> statement-breakpoint
CREATE TRIGGER merchants_count_update AFTER UPDATE ON merchants
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pps_count_merchants();
--> statement-breakpoint
CREATE TRIGGER merchants_count_delete AFTER DELETE ON merchants
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION pps_count_merchants();
--> statement-breakpoint
CREATE TRIGGER merchants_count_truncate AFTER TRUNCATE ON merchants
  FOR EACH STATEMENT EXECUTE FUNCTION pps_reset_counts('merchants');
--> statement-breakpoint
-- Rows whose counted columns never change (balance transactions' merchant and type, events' account and type,
-- deliveries' endpoint): counted on insert and delete only, so the many updates of their other columns (settlement,
-- delivery attempts) fire nothing. `npm run cli -- ledger:verify` would show a count an update had moved.
CREATE FUNCTION pps_count_rows() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  delta int := CASE WHEN TG_OP = 'INSERT' THEN 1 ELSE -1 END;
BEGIN
  IF TG_TABLE_NAME = 'balance_transactions' THEN
    IF TG_OP = 'INSERT' THEN
      PERFORM pps_move_counts('balance_transactions', array_agg(merchant_id), array_agg(type), array_agg(delta))
      FROM new_rows;
    ELSE
      PERFORM pps_move_counts('balance_transactions', array_agg(merchant_id), array_agg(type), array_agg(delta))
      FROM old_rows;
    END IF;
  ELSIF TG_TABLE_NAME = 'events' THEN
    IF TG_OP = 'INSERT' THEN
      PERFORM pps_move_counts('events', array_agg(account_id), array_agg(type), array_agg(delta)) FROM new_rows;
    ELSE
      PERFORM pps_move_counts('events', array_agg(account_id), array_agg(type), array_agg(delta)) FROM old_rows;
    END IF;
  ELSIF TG_OP = 'INSERT' THEN
    PERFORM pps_move_counts('webhook_deliveries', array_agg(endpoint_id), array_agg('all'::text), array_agg(delta))
    FROM new_rows;
  ELSE
    PERFORM pps_move_counts('webhook_deliveries', array_agg(endpoint_id), array_agg('all'::text), array_agg(delta))
    FROM old_rows;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER balance_transactions_count_insert AFTER INSERT ON balance_transactions
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pps_count_rows();
--> statement-breakpoint
CREATE TRIGGER balance_transactions_count_delete AFTER DELETE ON balance_transactions
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION pps_count_rows();
--> statement-breakpoint
CREATE TRIGGER balance_transactions_count_truncate AFTER TRUNCATE ON balance_transactions
  FOR EACH STATEMENT EXECUTE FUNCTION pps_reset_counts('balance_transactions');
--> statement-breakpoint
CREATE TRIGGER events_count_insert AFTER INSERT ON events
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pps_count_rows();
--> statement-breakpoint
CREATE TRIGGER events_count_delete AFTER DELETE ON events
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION pps_count_rows();
--> statement-breakpoint
CREATE TRIGGER events_count_truncate AFTER TRUNCATE ON events
  FOR EACH STATEMENT EXECUTE FUNCTION pps_reset_counts('events');
--> statement-breakpoint
CREATE TRIGGER webhook_deliveries_count_insert AFTER INSERT ON webhook_deliveries
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pps_count_rows();
--> statement-breakpoint
CREATE TRIGGER webhook_deliveries_count_delete AFTER DELETE ON webhook_deliveries
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION pps_count_rows();
--> statement-breakpoint
CREATE TRIGGER webhook_deliveries_count_truncate AFTER TRUNCATE ON webhook_deliveries
  FOR EACH STATEMENT EXECUTE FUNCTION pps_reset_counts('webhook_deliveries');
--> statement-breakpoint
-- An existing database's balances and totals, computed once. The triggers above were created first, in this
-- migration's transaction, and hold each table against writes until it commits: no row is counted twice or missed.
INSERT INTO ledger_balances (ledger_account, slot, balance)
SELECT ledger_account, 0, sum(amount) FROM ledger_entries GROUP BY ledger_account;
--> statement-breakpoint
INSERT INTO list_counts (list, scope, bucket, slot, count)
SELECT 'payments', scope, status, 0, count(*) FROM (
  SELECT merchant_id, status FROM payments
  UNION ALL SELECT split_merchant_id, status FROM payments WHERE split_merchant_id <> merchant_id
) AS listed(scope, status) WHERE status <> 'processing' GROUP BY scope, status
UNION ALL SELECT 'payouts', merchant_id, status, 0, count(*) FROM payouts GROUP BY merchant_id, status
UNION ALL SELECT 'account_payouts', account_id, status, 0, count(*) FROM payouts GROUP BY account_id, status
UNION ALL SELECT 'merchants', account_id, status, 0, count(*) FROM merchants GROUP BY account_id, status
UNION ALL SELECT 'balance_transactions', merchant_id, type, 0, count(*) FROM balance_transactions GROUP BY merchant_id, type
UNION ALL SELECT 'events', account_id, type, 0, count(*) FROM events GROUP BY account_id, type
UNION ALL SELECT 'webhook_deliveries', endpoint_id, 'all', 0, count(*) FROM webhook_deliveries GROUP BY endpoint_id;
