CREATE TABLE "negative_balances" (
	"merchant_id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"since" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "negative_balances" ADD CONSTRAINT "negative_balances_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "negative_balances_account_idx" ON "negative_balances" USING btree ("account_id");