DROP INDEX "payments_due_idx";--> statement-breakpoint
CREATE INDEX "payments_due_idx" ON "payments" USING btree ("settle_at","id") WHERE settled_at is null and settle_at is not null;