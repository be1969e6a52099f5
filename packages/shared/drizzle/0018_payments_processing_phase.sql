ALTER TABLE "payments" ADD COLUMN "processing_since" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "avs_requested" boolean;--> statement-breakpoint
CREATE INDEX "idempotency_keys_in_flight_idx" ON "idempotency_keys" USING btree ("payment_id") WHERE response_status is null;--> statement-breakpoint
CREATE INDEX "payments_processing_idx" ON "payments" USING btree ("processing_since","id") WHERE status = 'processing';