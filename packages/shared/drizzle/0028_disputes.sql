CREATE TABLE "disputes" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"payment_id" text NOT NULL,
	"merchant_id" text NOT NULL,
	"network_id" text NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"reason" text NOT NULL,
	"network_reason_code" text NOT NULL,
	"phase" text NOT NULL,
	"status" text NOT NULL,
	"due_by" timestamp (3) with time zone NOT NULL,
	"evidence" jsonb NOT NULL,
	"submission_count" integer NOT NULL,
	"submitted_at" timestamp (3) with time zone,
	"outcome" text,
	"decided_at" timestamp (3) with time zone,
	"withdrawn" bigint NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	"closed_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "sandbox_disputes" (
	"payment_id" text PRIMARY KEY NOT NULL,
	"phase" text NOT NULL,
	"reason" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "disputes" jsonb;--> statement-breakpoint
ALTER TABLE "disputes" ADD CONSTRAINT "disputes_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "disputes" ADD CONSTRAINT "disputes_payment_id_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "disputes_network_id_idx" ON "disputes" USING btree ("network_id");--> statement-breakpoint
CREATE INDEX "disputes_account_created_idx" ON "disputes" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE INDEX "disputes_merchant_created_idx" ON "disputes" USING btree ("merchant_id","created_at","id");--> statement-breakpoint
CREATE INDEX "disputes_payment_idx" ON "disputes" USING btree ("payment_id");--> statement-breakpoint
CREATE INDEX "disputes_open_idx" ON "disputes" USING btree ("due_by") WHERE status = 'needs_response';--> statement-breakpoint
CREATE INDEX "disputes_decided_idx" ON "disputes" USING btree ("decided_at") WHERE status = 'under_review';--> statement-breakpoint
-- Disputes: a merchant's and an account's, by status (docs/design.md, A merchant's history never slows the API).
CREATE FUNCTION pps_count_disputes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM pps_move_counts('disputes', array_agg(merchant_id), array_agg(status), array_agg(1)) FROM new_rows;
    PERFORM pps_move_counts('account_disputes', array_agg(account_id), array_agg(status), array_agg(1)) FROM new_rows;
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM pps_move_counts('disputes', array_agg(merchant_id), array_agg(status), array_agg(delta)) FROM (
      SELECT merchant_id, status, 1 FROM new_rows UNION ALL SELECT merchant_id, status, -1 FROM old_rows
    ) AS moved(merchant_id, status, delta);
    PERFORM pps_move_counts('account_disputes', array_agg(account_id), array_agg(status), array_agg(delta)) FROM (
      SELECT account_id, status, 1 FROM new_rows UNION ALL SELECT account_id, status, -1 FROM old_rows
    ) AS moved(account_id, status, delta);
  ELSE
    PERFORM pps_move_counts('disputes', array_agg(merchant_id), array_agg(status), array_agg(-1)) FROM old_rows;
    PERFORM pps_move_counts('account_disputes', array_agg(account_id), array_agg(status), array_agg(-1)) FROM old_rows;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER disputes_count_insert AFTER INSERT ON disputes
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pps_count_disputes();
--> statement-breakpoint
CREATE TRIGGER disputes_count_update AFTER UPDATE ON disputes
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pps_count_disputes();
--> statement-breakpoint
CREATE TRIGGER disputes_count_delete AFTER DELETE ON disputes
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION pps_count_disputes();
--> statement-breakpoint
CREATE TRIGGER disputes_count_truncate AFTER TRUNCATE ON disputes
  FOR EACH STATEMENT EXECUTE FUNCTION pps_reset_counts('disputes', 'account_disputes');
