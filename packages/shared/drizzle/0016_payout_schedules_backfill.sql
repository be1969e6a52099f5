-- Every merchant has a payout schedule row (the payout run claims these rows): merchants made before payouts
-- existed get the default, daily with no delay.
INSERT INTO "payout_schedules" ("merchant_id", "account_id")
SELECT "id", "account_id" FROM "merchants"
ON CONFLICT ("merchant_id") DO NOTHING;
