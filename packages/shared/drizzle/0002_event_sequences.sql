CREATE TABLE "event_sequences" (
	"resource_id" text PRIMARY KEY NOT NULL,
	"last_sequence" integer NOT NULL
);
