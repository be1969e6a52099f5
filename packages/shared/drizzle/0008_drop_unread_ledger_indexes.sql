DROP INDEX "ledger_entries_posting_idx";--> statement-breakpoint
DROP INDEX "ledger_entries_account_created_idx";