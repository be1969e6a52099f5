ALTER TABLE "payments" ADD COLUMN "capture_requested" boolean;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "authorization_expires_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "captured_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "void_reason" text;--> statement-breakpoint
CREATE INDEX "payments_authorized_expiry_idx" ON "payments" USING btree ("authorization_expires_at","id") WHERE status = 'authorized';--> statement-breakpoint
CREATE INDEX "payments_account_authorized_expiry_idx" ON "payments" USING btree ("account_id","authorization_expires_at","id") WHERE status = 'authorized';