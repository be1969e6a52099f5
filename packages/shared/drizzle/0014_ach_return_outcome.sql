-- ACH debits returned at settlement before the return was written to "code" and "message" still say their
-- acceptance ("0", "Accepted"). They get the return's code and message, as the sandbox processor gives them
-- (SANDBOX_ACH_RETURNS), which the settlement pass now writes itself. Events already written keep their payload.
UPDATE "payments" AS "p"
SET "code" = "r"."code", "message" = "r"."message"
FROM (VALUES
  ('R01', 'Insufficient funds'),
  ('R02', 'Account closed'),
  ('R03', 'No account/unable to locate account'),
  ('R04', 'Invalid account number structure')
) AS "r" ("code", "message")
WHERE "p"."return_code" = "r"."code" AND "p"."code" <> "r"."code";
