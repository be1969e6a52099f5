-- A new payment's 201 is no longer stored on its key (the payment's first event holds the resource it answered
-- with), so an answered key keeps `response_status` null and the in-flight index would hold every key: keys are
-- indexed by their payment instead, for the outcome that stores a refusal on one (issue 45).
DROP INDEX "idempotency_keys_in_flight_idx";--> statement-breakpoint
CREATE INDEX "idempotency_keys_payment_idx" ON "idempotency_keys" USING btree ("payment_id") WHERE payment_id is not null;