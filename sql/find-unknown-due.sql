-- purpose: the UNKNOWN rows old enough (min-age) for the core to have finished whatever it got, the oldest first; a run
-- takes at most :#batchSize (relay.jobs.batch-size) and the next run goes on with the rest. A read, from the index.
-- The age is measured on the database's clock: {{relay.ledger.seconds-ago}} is now minus :#ageSeconds (LedgerDialect).
SELECT guid, request
FROM tx
WHERE state = 'UNKNOWN' AND updated_at <= {{relay.ledger.seconds-ago}}
ORDER BY updated_at
LIMIT :#batchSize
