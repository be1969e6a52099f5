CREATE TABLE "console_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text,
	"credential_hash" text NOT NULL,
	"csrf_token" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"last_seen_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "console_sessions_account_idx" ON "console_sessions" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "console_sessions_seen_idx" ON "console_sessions" USING btree ("last_seen_at");