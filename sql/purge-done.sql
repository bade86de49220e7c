-- purpose: delete one batch of DONE rows older than the purge age, at most :#batchSize of them, in a short transaction of
-- its own (the purge runs batch after batch until one comes back short); UNKNOWN, FAILED, SENT and RECEIVED stay whatever
-- their age. Both conditions stand in the choice of the batch and in the DELETE itself.
-- The age is measured on the database's clock: {{relay.ledger.days-ago}} is now minus :#ageDays (LedgerDialect); on
-- PostgreSQL rows that another relay's purge holds are skipped, not waited for ({{relay.ledger.skip-locked}}). The batch is
-- chosen once (MATERIALIZED): as a plain subquery PostgreSQL may run it again for each row, each time skipping the rows
-- it locked the time before, and so delete far more than one batch.
WITH batch AS MATERIALIZED (
    SELECT guid FROM tx
    WHERE state = 'DONE' AND updated_at < {{relay.ledger.days-ago}}
    LIMIT :#batchSize {{relay.ledger.skip-locked}})
DELETE FROM tx
WHERE guid IN (SELECT guid FROM batch)
  AND state = 'DONE' AND updated_at < {{relay.ledger.days-ago}}
