CREATE TABLE "payment_claims" (
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
	"bank_account_number_enc" text,
	"bank_routing_number_enc" text,
	"ach_file_id" text,
	"trace_number" text,
	"misc_data" text,
	"settle_at" timestamp (3) with time zone,
	"settled_at" timestamp (3) with time zone,
	"voided_at" timestamp (3) with time zone,
	"failed_at" timestamp (3) with time zone,
	"request_id" text,
	"processing_since" timestamp (3) with time zone,
	"avs_requested" boolean,
	"capture_requested" boolean,
	"authorization_expires_at" timestamp (3) with time zone,
	"captured_at" timestamp (3) with time zone,
	"void_reason" text,
	"disputes" jsonb,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
-- New payments between their phases move to their claims: phase 3 or recovery records them into payments once.
INSERT INTO "payment_claims" (id, account_id, merchant_id, parent_payment_id, payment_type, request_type, status, amount, currency, invoice, gross, fee_fixed, rate_basis_points, gross_minus_net, net, split_merchant_id, split_amount, refund_type, code, message, auth_code, avs_result, return_code, token_id, card, billing_address, bank, misc_data, settle_at, settled_at, voided_at, failed_at, request_id, created_at, updated_at, bank_account_number_enc, bank_routing_number_enc, ach_file_id, processing_since, avs_requested, capture_requested, authorization_expires_at, captured_at, void_reason, trace_number, disputes)
  SELECT id, account_id, merchant_id, parent_payment_id, payment_type, request_type, status, amount, currency, invoice, gross, fee_fixed, rate_basis_points, gross_minus_net, net, split_merchant_id, split_amount, refund_type, code, message, auth_code, avs_result, return_code, token_id, card, billing_address, bank, misc_data, settle_at, settled_at, voided_at, failed_at, request_id, created_at, updated_at, bank_account_number_enc, bank_routing_number_enc, ach_file_id, processing_since, avs_requested, capture_requested, authorization_expires_at, captured_at, void_reason, trace_number, disputes FROM "payments" WHERE "status" = 'processing';--> statement-breakpoint
DELETE FROM "payments" WHERE "status" = 'processing';--> statement-breakpoint
DROP INDEX "payments_processing_idx";--> statement-breakpoint
-- payment_claims is read by id only through these functions, which plan with sequential scans off. The table holds
-- a handful of live claims and every claim recorded since its last vacuum, dead: a plan made while it looked empty
-- (a prepared statement keeps one) reads every dead claim's page on each call. By primary key, it reads its own.
-- PL/pgSQL keeps each function's plan for the session, made with the function's settings.
CREATE FUNCTION "pps_claims"(ids text[]) RETURNS SETOF "payment_claims" LANGUAGE plpgsql STABLE
  SET enable_seqscan = off
  AS $$ BEGIN RETURN QUERY SELECT * FROM payment_claims WHERE id = ANY (ids); END $$;--> statement-breakpoint
CREATE FUNCTION "pps_lock_claims"(ids text[]) RETURNS SETOF "payment_claims" LANGUAGE plpgsql
  SET enable_seqscan = off
  AS $$ BEGIN RETURN QUERY SELECT * FROM payment_claims WHERE id = ANY (ids) ORDER BY id FOR UPDATE; END $$;--> statement-breakpoint
CREATE FUNCTION "pps_take_claims"(ids text[]) RETURNS SETOF "payment_claims" LANGUAGE plpgsql
  SET enable_seqscan = off
  AS $$ BEGIN RETURN QUERY DELETE FROM payment_claims WHERE id = ANY (ids) RETURNING *; END $$;
