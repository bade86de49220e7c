-- purpose: delete one batch of history rows older than relay.history.days, at most :#batchSize of them, in a short
-- transaction of its own (the purge runs batch after batch until one comes back short), after the purge of DONE rows.
-- The age is measured on the database's clock: {{relay.ledger.days-ago}} is now minus :#ageDays (LedgerDialect). History
-- rows are written in the order of their ids, so the batch is chosen among the :#batchSize oldest by id (the primary key,
-- no index of their age to keep up at every change): those of them past the age go.
WITH oldest AS MATERIALIZED (
    SELECT id, at FROM tx_history
    ORDER BY id
    LIMIT :#batchSize {{relay.ledger.skip-locked}})
DELETE FROM tx_history
WHERE id IN (SELECT id FROM oldest WHERE at < {{relay.ledger.days-ago}})
