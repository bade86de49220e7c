-- purpose: the UNKNOWN rows old enough (min-age) for the core to have finished whatever it got; a run takes at most 500.
-- The age is measured on the database's clock: {{relay.ledger.seconds-ago}} is now minus :#ageSeconds (LedgerDialect).
SELECT guid, request
FROM tx
WHERE state = 'UNKNOWN' AND updated_at <= {{relay.ledger.seconds-ago}}
ORDER BY updated_at
LIMIT 500
