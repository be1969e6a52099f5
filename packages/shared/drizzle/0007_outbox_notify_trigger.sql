-- The outbox relay LISTENs on pps_outbox. Every statement that inserts events notifies it (once per statement,
-- delivered at commit), so no writer has to remember to: the payment path writes its events inside a larger
-- statement (issue 11).
CREATE FUNCTION pps_notify_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('pps_outbox', '');
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER events_notify_outbox AFTER INSERT ON events FOR EACH STATEMENT EXECUTE FUNCTION pps_notify_outbox();
