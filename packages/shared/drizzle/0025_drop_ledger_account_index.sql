-- Balances are kept (ledger_balances, migration 0024), so nothing reads the entries by ledger account any more:
-- each entry no longer pays for this index's insert. `npm run cli -- ledger:verify` reads the whole table anyway.
DROP INDEX "ledger_entries_ledger_account_idx";
