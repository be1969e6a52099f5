DROP INDEX "payments_account_created_idx";--> statement-breakpoint
DROP INDEX "balance_transactions_payout_idx";--> statement-breakpoint
CREATE INDEX "balance_transactions_payout_idx" ON "balance_transactions" USING btree ("payout_id") WHERE payout_id is not null;