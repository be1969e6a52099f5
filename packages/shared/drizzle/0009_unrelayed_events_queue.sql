CREATE TABLE "unrelayed_events" (
	"event_id" text PRIMARY KEY NOT NULL
);
--> statement-breakpoint
-- Events written before the queue existed and not relayed yet go into it, so none is lost in the change.
INSERT INTO "unrelayed_events" ("event_id") SELECT "id" FROM "events" WHERE "relayed_at" IS NULL;
--> statement-breakpoint
DROP INDEX "events_unrelayed_idx";--> statement-breakpoint
ALTER TABLE "events" DROP COLUMN "relayed_at";
