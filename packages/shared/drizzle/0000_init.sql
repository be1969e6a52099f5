CREATE TABLE "accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"api_key_hash" text NOT NULL,
	"api_key_last4" text NOT NULL,
	"clock_offset_seconds" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "accounts_api_key_hash_unique" UNIQUE("api_key_hash")
);
--> statement-breakpoint
CREATE TABLE "app_keys" (
	"key_hash" text PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"version" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"superseded_at" timestamp (3) with time zone,
	CONSTRAINT "app_keys_app_version_uq" UNIQUE("app_id","version")
);
--> statement-breakpoint
CREATE TABLE "apps" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"name" text NOT NULL,
	"key_version" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "events" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"type" text NOT NULL,
	"resource_type" text NOT NULL,
	"resource_id" text NOT NULL,
	"sequence" integer NOT NULL,
	"payload" jsonb NOT NULL,
	"request_id" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"relayed_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "merchant_bank_accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"version" integer NOT NULL,
	"bank_name" text NOT NULL,
	"account_ownership" text NOT NULL,
	"account_type" text NOT NULL,
	"account_name" text NOT NULL,
	"account_number_enc" text NOT NULL,
	"routing_number_enc" text NOT NULL,
	"last4" text NOT NULL,
	"routing_last4" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"superseded_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "merchants" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"status" text NOT NULL,
	"status_reason" text,
	"account_type" text NOT NULL,
	"account_name" text NOT NULL,
	"avs_mode" text DEFAULT 'Standard' NOT NULL,
	"fraud_screen_policy" text DEFAULT 'Default' NOT NULL,
	"fraud_screen_session_id" text,
	"misc_data" text,
	"email" text NOT NULL,
	"personal_info" jsonb NOT NULL,
	"personal_address" jsonb NOT NULL,
	"business_info" jsonb,
	"business_address" jsonb,
	"verification_data" jsonb NOT NULL,
	"ssn_enc" text NOT NULL,
	"ssn_last4" text NOT NULL,
	"birth_date_enc" text NOT NULL,
	"birth_date_last4" text NOT NULL,
	"ein_enc" text,
	"ein_last4" text,
	"email_index" text NOT NULL,
	"tax_id_index" text NOT NULL,
	"features" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"fee_rate_basis_points" integer,
	"fee_fixed_cents" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"account_id" text NOT NULL,
	"request_id" text NOT NULL,
	"request_hash" text NOT NULL,
	"response_status" integer,
	"response_body" jsonb,
	"payment_id" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "idempotency_keys_pk" PRIMARY KEY("account_id","request_id")
);
--> statement-breakpoint
CREATE TABLE "payments" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"merchant_id" text NOT NULL,
	"parent_payment_id" text,
	"payment_type" text NOT NULL,
	"request_type" text NOT NULL,
	"status" text NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"invoice" text,
	"gross" bigint NOT NULL,
	"fee_fixed" bigint NOT NULL,
	"rate_basis_points" integer NOT NULL,
	"gross_minus_net" bigint NOT NULL,
	"net" bigint NOT NULL,
	"split_merchant_id" text,
	"split_amount" bigint,
	"refund_type" text,
	"code" text NOT NULL,
	"message" text NOT NULL,
	"auth_code" text,
	"avs_result" text,
	"return_code" text,
	"token_id" text,
	"card" jsonb,
	"billing_address" jsonb,
	"bank" jsonb,
	"misc_data" text,
	"settle_at" timestamp (3) with time zone,
	"settled_at" timestamp (3) with time zone,
	"voided_at" timestamp (3) with time zone,
	"failed_at" timestamp (3) with time zone,
	"request_id" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "customers" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"name" text NOT NULL,
	"email" text,
	"phone" text,
	"external_id" text,
	"merchant_id" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"customer_id" text,
	"token_type" text NOT NULL,
	"label" text,
	"holder" text NOT NULL,
	"pan_enc" text NOT NULL,
	"brand" text NOT NULL,
	"last4" text NOT NULL,
	"expiry" text NOT NULL,
	"billing_address" jsonb,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ledger_entries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"posting_id" text NOT NULL,
	"account_id" text NOT NULL,
	"payment_id" text NOT NULL,
	"kind" text NOT NULL,
	"ledger_account" text NOT NULL,
	"amount" bigint NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "app_keys" ADD CONSTRAINT "app_keys_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "apps" ADD CONSTRAINT "apps_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "merchant_bank_accounts" ADD CONSTRAINT "merchant_bank_accounts_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "merchants" ADD CONSTRAINT "merchants_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_parent_payment_id_payments_id_fk" FOREIGN KEY ("parent_payment_id") REFERENCES "public"."payments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_split_merchant_id_merchants_id_fk" FOREIGN KEY ("split_merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "customers" ADD CONSTRAINT "customers_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "customers" ADD CONSTRAINT "customers_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tokens" ADD CONSTRAINT "tokens_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tokens" ADD CONSTRAINT "tokens_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "apps_account_idx" ON "apps" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "events_account_created_idx" ON "events" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "events_resource_idx" ON "events" USING btree ("resource_id","sequence");--> statement-breakpoint
CREATE INDEX "events_unrelayed_idx" ON "events" USING btree ("created_at") WHERE relayed_at is null;--> statement-breakpoint
CREATE UNIQUE INDEX "merchant_bank_accounts_version_uq" ON "merchant_bank_accounts" USING btree ("merchant_id","version");--> statement-breakpoint
CREATE UNIQUE INDEX "merchant_bank_accounts_current_uq" ON "merchant_bank_accounts" USING btree ("merchant_id") WHERE superseded_at is null;--> statement-breakpoint
CREATE INDEX "merchants_account_created_idx" ON "merchants" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "merchants_account_status_created_idx" ON "merchants" USING btree ("account_id","status","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "merchants_account_email_uq" ON "merchants" USING btree ("account_id","email_index");--> statement-breakpoint
CREATE UNIQUE INDEX "merchants_account_tax_id_uq" ON "merchants" USING btree ("account_id","tax_id_index");--> statement-breakpoint
CREATE INDEX "idempotency_keys_created_idx" ON "idempotency_keys" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "payments_merchant_created_idx" ON "payments" USING btree ("merchant_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "payments_split_merchant_created_idx" ON "payments" USING btree ("split_merchant_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE split_merchant_id is not null;--> statement-breakpoint
CREATE INDEX "payments_account_created_idx" ON "payments" USING btree ("account_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "payments_parent_idx" ON "payments" USING btree ("parent_payment_id") WHERE parent_payment_id is not null;--> statement-breakpoint
CREATE INDEX "payments_settlement_idx" ON "payments" USING btree ("status","settle_at");--> statement-breakpoint
CREATE INDEX "customers_account_created_idx" ON "customers" USING btree ("account_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "customers_account_external_idx" ON "customers" USING btree ("account_id","external_id");--> statement-breakpoint
CREATE INDEX "customers_account_merchant_idx" ON "customers" USING btree ("account_id","merchant_id");--> statement-breakpoint
CREATE INDEX "tokens_account_created_idx" ON "tokens" USING btree ("account_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "tokens_customer_created_idx" ON "tokens" USING btree ("customer_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "ledger_entries_ledger_account_idx" ON "ledger_entries" USING btree ("ledger_account");--> statement-breakpoint
CREATE INDEX "ledger_entries_payment_idx" ON "ledger_entries" USING btree ("payment_id");--> statement-breakpoint
CREATE INDEX "ledger_entries_posting_idx" ON "ledger_entries" USING btree ("posting_id");--> statement-breakpoint
CREATE INDEX "ledger_entries_account_created_idx" ON "ledger_entries" USING btree ("account_id","created_at");