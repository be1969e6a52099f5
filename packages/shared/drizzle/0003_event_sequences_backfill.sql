-- Event sequences continue from the events already written: one counter row per resource.
INSERT INTO "event_sequences" ("resource_id", "last_sequence")
SELECT "resource_id", max("sequence") FROM "events" GROUP BY "resource_id"
ON CONFLICT ("resource_id") DO UPDATE SET "last_sequence" = GREATEST("event_sequences"."last_sequence", excluded."last_sequence");
