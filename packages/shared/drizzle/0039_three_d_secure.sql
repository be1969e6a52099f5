CREATE TABLE "payment_challenges" (
	"payment_id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"token" text NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payment_claims" ADD COLUMN "authentication" jsonb;--> statement-breakpoint
ALTER TABLE "payment_claims" ADD COLUMN "three_d_secure" jsonb;--> statement-breakpoint
ALTER TABLE "payment_claims" ADD COLUMN "next_action" jsonb;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "authentication" jsonb;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "three_d_secure" jsonb;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "next_action" jsonb;--> statement-breakpoint
ALTER TABLE "payment_challenges" ADD CONSTRAINT "payment_challenges_payment_id_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "payment_challenges_token_idx" ON "payment_challenges" USING btree ("token");--> statement-breakpoint
CREATE INDEX "payment_challenges_expiry_idx" ON "payment_challenges" USING btree ("expires_at","payment_id");--> statement-breakpoint
CREATE INDEX "payment_challenges_account_expiry_idx" ON "payment_challenges" USING btree ("account_id","expires_at","payment_id");--> statement-breakpoint
CREATE INDEX "payments_processing_idx" ON "payments" USING btree ("processing_since","id") WHERE status = 'processing';--> statement-breakpoint
-- A payment that waits for its cardholder (`requires_action`) is an attempt, not yet an approval: counted as one
-- when it is inserted, and as an approval, with its amount, when the challenge it waited for ends in one.
CREATE OR REPLACE FUNCTION pps_keep_daily_figures() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO daily_figures (account_id, day, slot, attempts, approved, approved_amount)
  SELECT account_id, (created_at AT TIME ZONE 'America/Los_Angeles')::date, pg_backend_pid() % 16,
    count(*), count(*) FILTER (WHERE status NOT IN ('failed', 'requires_action')),
    coalesce(sum(amount) FILTER (WHERE status NOT IN ('failed', 'requires_action')), 0)
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
CREATE FUNCTION pps_keep_daily_approvals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO daily_figures (account_id, day, slot, attempts, approved, approved_amount)
  VALUES (NEW.account_id, (NEW.created_at AT TIME ZONE 'America/Los_Angeles')::date, pg_backend_pid() % 16, 0, 1,
    NEW.amount)
  ON CONFLICT (account_id, day, slot) DO UPDATE SET
    approved = daily_figures.approved + 1,
    approved_amount = daily_figures.approved_amount + excluded.approved_amount;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
-- Row by row, and only for a challenge's approval: the condition is judged before any function runs, so every
-- other update of a payment (settling, refunds) costs nothing here.
CREATE TRIGGER payments_keep_daily_approvals AFTER UPDATE OF status ON payments FOR EACH ROW
  WHEN (OLD.status IN ('processing', 'requires_action') AND NEW.status IN ('pending', 'authorized')
    AND NEW.three_d_secure IS NOT NULL AND NEW.parent_payment_id IS NULL)
  EXECUTE FUNCTION pps_keep_daily_approvals();
