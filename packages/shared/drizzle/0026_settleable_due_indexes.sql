-- The settlement claim's indexes hold only the records it can take: a voided payment or a returned ACH debit keeps
-- its settle_at and never settles, and in the old indexes every claim read all of them again (issue 40).
DROP INDEX "payments_due_idx";--> statement-breakpoint
DROP INDEX "payments_account_due_idx";--> statement-breakpoint
CREATE INDEX "payments_due_idx" ON "payments" USING btree ("settle_at","id") WHERE settled_at is null and settle_at is not null and status in ('pending', 'partial_refund', 'refunded');--> statement-breakpoint
CREATE INDEX "payments_account_due_idx" ON "payments" USING btree ("account_id","settle_at","id") WHERE settled_at is null and settle_at is not null and status in ('pending', 'partial_refund', 'refunded');