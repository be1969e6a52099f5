CREATE TABLE "health_samples" (
	"taken_at" timestamp (3) with time zone PRIMARY KEY NOT NULL,
	"queues" jsonb NOT NULL,
	"outbox_unrelayed" integer NOT NULL,
	"outbox_lag_seconds" integer NOT NULL
);
