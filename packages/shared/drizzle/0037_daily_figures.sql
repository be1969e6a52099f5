CREATE TABLE "daily_figures" (
	"account_id" text NOT NULL,
	"day" date NOT NULL,
	"slot" smallint NOT NULL,
	"attempts" bigint NOT NULL,
	"approved" bigint NOT NULL,
	"approved_amount" bigint NOT NULL,
	CONSTRAINT "daily_figures_account_id_day_slot_pk" PRIMARY KEY("account_id","day","slot")
);
--> statement-breakpoint
-- Each insert statement's new payments (not their children: refunds, captures and splits name a parent), added to
-- their account's day: the Pacific date of created_at, which is the account's clock. A declined payment is inserted
-- `failed`; every other outcome is an approval. A payment between its phases (`processing`, an older writer's) is
-- not an outcome yet. One upsert per account and day per statement, in key order, on the connection's slot.
CREATE FUNCTION pps_keep_daily_figures() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO daily_figures (account_id, day, slot, attempts, approved, approved_amount)
  SELECT account_id, (created_at AT TIME ZONE 'America/Los_Angeles')::date, pg_backend_pid() % 16,
    count(*), count(*) FILTER (WHERE status <> 'failed'), coalesce(sum(amount) FILTER (WHERE status <> 'failed'), 0)
  FROM new_rows
  WHERE parent_payment_id IS NULL AND status <> 'processing'
  GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (account_id, day, slot) DO UPDATE SET
    attempts = daily_figures.attempts + excluded.attempts,
    approved = daily_figures.approved + excluded.approved,
    approved_amount = daily_figures.approved_amount + excluded.approved_amount;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER payments_keep_daily_figures AFTER INSERT ON payments
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pps_keep_daily_figures();
--> statement-breakpoint
-- A truncated payments table starts its days again (tests truncate; the platform never does).
CREATE FUNCTION pps_reset_daily_figures() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM daily_figures;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER payments_reset_daily_figures AFTER TRUNCATE ON payments
  FOR EACH STATEMENT EXECUTE FUNCTION pps_reset_daily_figures();
--> statement-breakpoint
-- The payments already written, counted once.
INSERT INTO daily_figures (account_id, day, slot, attempts, approved, approved_amount)
SELECT account_id, (created_at AT TIME ZONE 'America/Los_Angeles')::date, 0,
  count(*), count(*) FILTER (WHERE status <> 'failed'), coalesce(sum(amount) FILTER (WHERE status <> 'failed'), 0)
FROM payments
WHERE parent_payment_id IS NULL AND status <> 'processing'
GROUP BY 1, 2;
