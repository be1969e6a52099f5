DROP INDEX "customers_account_created_idx";--> statement-breakpoint
DROP INDEX "payments_merchant_created_idx";--> statement-breakpoint
DROP INDEX "payments_split_merchant_created_idx";--> statement-breakpoint
DROP INDEX "payments_account_created_idx";--> statement-breakpoint
DROP INDEX "ach_files_created_idx";--> statement-breakpoint
DROP INDEX "tokens_account_created_idx";--> statement-breakpoint
DROP INDEX "tokens_customer_created_idx";--> statement-breakpoint
CREATE INDEX "events_account_type_created_idx" ON "events" USING btree ("account_id","type","created_at","id");--> statement-breakpoint
CREATE INDEX "customers_account_created_idx" ON "customers" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE INDEX "payments_merchant_created_idx" ON "payments" USING btree ("merchant_id","created_at","id");--> statement-breakpoint
CREATE INDEX "payments_split_merchant_created_idx" ON "payments" USING btree ("split_merchant_id","created_at","id") WHERE split_merchant_id is not null;--> statement-breakpoint
CREATE INDEX "payments_account_created_idx" ON "payments" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "ach_files_created_idx" ON "ach_files" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "tokens_account_created_idx" ON "tokens" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE INDEX "tokens_customer_created_idx" ON "tokens" USING btree ("customer_id","created_at","id");