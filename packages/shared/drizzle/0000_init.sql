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
ALTER TABLE "app_keys" ADD CONSTRAINT "app_keys_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "apps" ADD CONSTRAINT "apps_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "merchant_bank_accounts" ADD CONSTRAINT "merchant_bank_accounts_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "merchants" ADD CONSTRAINT "merchants_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "apps_account_idx" ON "apps" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "events_account_created_idx" ON "events" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "events_resource_idx" ON "events" USING btree ("resource_id","sequence");--> statement-breakpoint
CREATE INDEX "events_unrelayed_idx" ON "events" USING btree ("created_at") WHERE relayed_at is null;--> statement-breakpoint
CREATE UNIQUE INDEX "merchant_bank_accounts_version_uq" ON "merchant_bank_accounts" USING btree ("merchant_id","version");--> statement-breakpoint
CREATE UNIQUE INDEX "merchant_bank_accounts_current_uq" ON "merchant_bank_accounts" USING btree ("merchant_id") WHERE superseded_at is null;--> statement-breakpoint
CREATE INDEX "merchants_account_created_idx" ON "merchants" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "merchants_account_email_uq" ON "merchants" USING btree ("account_id","email_index");--> statement-breakpoint
CREATE UNIQUE INDEX "merchants_account_tax_id_uq" ON "merchants" USING btree ("account_id","tax_id_index");