-- Every read of ledger entries finds them by payment, in posting order: the primary key (payment_id, id) is that
-- index, so the key on id alone (read by no query) and the payment index go, and each entry is one index insert.
ALTER TABLE "ledger_entries" DROP CONSTRAINT "ledger_entries_pkey";--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_payment_id_id_pk" PRIMARY KEY("payment_id","id");--> statement-breakpoint
DROP INDEX "ledger_entries_payment_idx";
