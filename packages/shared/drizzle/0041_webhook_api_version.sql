ALTER TABLE "webhook_endpoints" ADD COLUMN "api_version" text DEFAULT '2026-11-29' NOT NULL;--> statement-breakpoint
-- An endpoint that exists takes its account's pin: what its deliveries were rendered in until now.
UPDATE "webhook_endpoints" AS w SET "api_version" = a."api_version" FROM "accounts" AS a
  WHERE a."id" = w."account_id" AND a."api_version" <> w."api_version";
