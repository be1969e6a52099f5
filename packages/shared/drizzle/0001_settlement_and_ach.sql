CREATE TABLE "ach_files" (
	"id" text PRIMARY KEY NOT NULL,
	"batch_count" integer NOT NULL,
	"entry_count" integer NOT NULL,
	"entry_hash" text NOT NULL,
	"total_debit" bigint DEFAULT 0 NOT NULL,
	"total_credit" bigint DEFAULT 0 NOT NULL,
	"payment_ids" jsonb NOT NULL,
	"content" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "settlement_batches" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"merchant_id" text NOT NULL,
	"settlement_date" text NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	"gross" bigint DEFAULT 0 NOT NULL,
	"fees" bigint DEFAULT 0 NOT NULL,
	"refunds" bigint DEFAULT 0 NOT NULL,
	"net" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "bank_account_number_enc" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "bank_routing_number_enc" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "ach_file_id" text;--> statement-breakpoint
ALTER TABLE "settlement_batches" ADD CONSTRAINT "settlement_batches_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "settlement_batches" ADD CONSTRAINT "settlement_batches_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ach_files_created_idx" ON "ach_files" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "settlement_batches_merchant_day_uq" ON "settlement_batches" USING btree ("merchant_id","settlement_date");--> statement-breakpoint
CREATE INDEX "settlement_batches_account_day_idx" ON "settlement_batches" USING btree ("account_id","settlement_date");--> statement-breakpoint
CREATE INDEX "payments_due_idx" ON "payments" USING btree ("settle_at") WHERE settled_at is null and settle_at is not null;