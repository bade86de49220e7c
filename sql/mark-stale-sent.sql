-- purpose: a SENT row older than sent-stale-after belongs to a call that a crash interrupted: make it UNKNOWN/E901
-- so that it is resolved by inquiry, never resent blind. updated_at is kept: the request may have left then.
-- One batch of at most :#batchSize rows, in a short transaction of its own (resolve runs batch after batch until one
-- comes back short); both conditions stand in the choice of the batch and in the UPDATE itself. The batch is chosen once
-- (MATERIALIZED; on PostgreSQL skipping rows another relay's batch holds, as sql/purge-done.sql says).
-- The age is measured on the database's clock: {{relay.ledger.seconds-ago}} is now minus :#ageSeconds (LedgerDialect).
WITH batch AS MATERIALIZED (
    SELECT guid FROM tx
    WHERE state = 'SENT' AND updated_at <= {{relay.ledger.seconds-ago}}
    LIMIT :#batchSize {{relay.ledger.skip-locked}})
UPDATE tx
SET state = 'UNKNOWN', rsp_code = 'E901'
WHERE guid IN (SELECT guid FROM batch)
  AND state = 'SENT' AND updated_at <= {{relay.ledger.seconds-ago}}
