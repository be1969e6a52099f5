CREATE TABLE "balance_transactions" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"merchant_id" text NOT NULL,
	"type" text NOT NULL,
	"amount" bigint NOT NULL,
	"fee" bigint NOT NULL,
	"net" bigint NOT NULL,
	"source_id" text NOT NULL,
	"posting_id" text NOT NULL,
	"status" text NOT NULL,
	"available_on" timestamp (3) with time zone NOT NULL,
	"payout_id" text,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payout_schedules" (
	"merchant_id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"interval" text DEFAULT 'daily' NOT NULL,
	"weekly_anchor" text,
	"monthly_anchor" integer,
	"delay_days" integer DEFAULT 0 NOT NULL,
	"last_run_on" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payouts" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"merchant_id" text NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text DEFAULT 'USD' NOT NULL,
	"status" text NOT NULL,
	"method" text NOT NULL,
	"arrival_date" text NOT NULL,
	"bank_account_id" text NOT NULL,
	"bank_last4" text NOT NULL,
	"routing_last4" text NOT NULL,
	"brought_forward" bigint DEFAULT 0 NOT NULL,
	"carried_forward" bigint DEFAULT 0 NOT NULL,
	"ach_file_id" text,
	"trace_number" text,
	"failure_code" text,
	"failure_message" text,
	"request_id" text,
	"paid_at" timestamp (3) with time zone,
	"failed_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ach_files" ADD COLUMN "payout_ids" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "balance_transactions" ADD CONSTRAINT "balance_transactions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payout_schedules" ADD CONSTRAINT "payout_schedules_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payout_schedules" ADD CONSTRAINT "payout_schedules_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payouts" ADD CONSTRAINT "payouts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payouts" ADD CONSTRAINT "payouts_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payouts" ADD CONSTRAINT "payouts_bank_account_id_merchant_bank_accounts_id_fk" FOREIGN KEY ("bank_account_id") REFERENCES "public"."merchant_bank_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "balance_transactions_merchant_created_idx" ON "balance_transactions" USING btree ("merchant_id","created_at","id");--> statement-breakpoint
CREATE INDEX "balance_transactions_source_idx" ON "balance_transactions" USING btree ("source_id");--> statement-breakpoint
CREATE INDEX "balance_transactions_payout_idx" ON "balance_transactions" USING btree ("payout_id");--> statement-breakpoint
CREATE INDEX "balance_transactions_unpaid_idx" ON "balance_transactions" USING btree ("merchant_id","available_on") WHERE status = 'available' and payout_id is null;--> statement-breakpoint
CREATE INDEX "payout_schedules_account_idx" ON "payout_schedules" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "payouts_account_created_idx" ON "payouts" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE INDEX "payouts_merchant_created_idx" ON "payouts" USING btree ("merchant_id","created_at","id");--> statement-breakpoint
CREATE INDEX "payouts_pending_idx" ON "payouts" USING btree ("arrival_date","id") WHERE status = 'pending';