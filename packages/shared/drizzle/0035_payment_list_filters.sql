CREATE INDEX "customers_account_email_idx" ON "customers" USING btree ("account_id",lower(email));--> statement-breakpoint
CREATE INDEX "payments_account_created_idx" ON "payments" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE INDEX "payments_merchant_last4_idx" ON "payments" USING btree ("merchant_id",(card->>'last4'),"created_at","id") WHERE card is not null;--> statement-breakpoint
CREATE INDEX "payments_split_merchant_last4_idx" ON "payments" USING btree ("split_merchant_id",(card->>'last4'),"created_at","id") WHERE split_merchant_id is not null and card is not null;--> statement-breakpoint
CREATE INDEX "payments_account_last4_idx" ON "payments" USING btree ("account_id",(card->>'last4'),"created_at","id") WHERE card is not null;--> statement-breakpoint
CREATE INDEX "payments_token_created_idx" ON "payments" USING btree ("token_id","created_at","id") WHERE token_id is not null;