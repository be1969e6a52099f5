CREATE UNIQUE INDEX "webhook_deliveries_event_endpoint_uq" ON "webhook_deliveries" USING btree ("event_id","endpoint_id");--> statement-breakpoint
DROP INDEX "webhook_deliveries_endpoint_event_uq";--> statement-breakpoint
DROP INDEX "webhook_deliveries_event_idx";--> statement-breakpoint
DROP INDEX "webhook_deliveries_in_flight_idx";--> statement-breakpoint
CREATE INDEX "webhook_deliveries_in_flight_idx" ON "webhook_deliveries" USING btree ("enqueued_at") WHERE status = 'pending' and enqueued_at is not null and leased_until is null;
