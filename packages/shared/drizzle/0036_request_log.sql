CREATE TABLE "request_log" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"status" smallint NOT NULL,
	"client_request_id" text,
	"idempotency_key" text,
	"duration_ms" integer NOT NULL,
	"request_body" text,
	"request_body_truncated" boolean DEFAULT false NOT NULL,
	"response_body" text,
	"response_body_truncated" boolean DEFAULT false NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "request_log_account_created_idx" ON "request_log" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE INDEX "request_log_account_path_idx" ON "request_log" USING btree ("account_id","path" collate "C");--> statement-breakpoint
CREATE INDEX "request_log_client_request_idx" ON "request_log" USING btree ("account_id","client_request_id") WHERE "request_log"."client_request_id" is not null;--> statement-breakpoint
-- `GET /requests`'s totals, kept as migration 0024 keeps the other lists': per account, bucket `<method> <status>`
-- (`POST 201`), so a total by method, by status or by status class reads the account's few buckets, never its
-- requests. A logged request never changes: counted on insert and delete (retention) only.
CREATE FUNCTION pps_count_requests() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM pps_move_counts('requests', array_agg(account_id), array_agg(method || ' ' || status), array_agg(1))
    FROM new_rows;
  ELSE
    PERFORM pps_move_counts('requests', array_agg(account_id), array_agg(method || ' ' || status), array_agg(-1))
    FROM old_rows;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER request_log_count_insert AFTER INSERT ON request_log
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pps_count_requests();
--> statement-breakpoint
CREATE TRIGGER request_log_count_delete AFTER DELETE ON request_log
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION pps_count_requests();
--> statement-breakpoint
CREATE TRIGGER request_log_count_truncate AFTER TRUNCATE ON request_log
  FOR EACH STATEMENT EXECUTE FUNCTION pps_reset_counts('requests');
