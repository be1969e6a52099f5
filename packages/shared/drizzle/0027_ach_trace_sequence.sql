CREATE SEQUENCE "public"."ach_trace_sequence" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9999999 START WITH 1 CACHE 1 CYCLE;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "trace_number" text;