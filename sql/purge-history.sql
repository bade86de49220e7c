-- purpose: delete one batch of history rows older than relay.history.days, at most :#batchSize of them, in a short
-- transaction of its own (the purge runs batch after batch until one comes back short), after the purge of DONE rows.
-- The age is measured on the database's clock: {{relay.ledger.days-ago}} is now minus :#ageDays (LedgerDialect). The batch
-- is chosen once and its rows found by their key, as sql/purge-done.sql says.
WITH batch AS MATERIALIZED (
    SELECT id FROM tx_history
    WHERE at < {{relay.ledger.days-ago}}
    LIMIT :#batchSize {{relay.ledger.skip-locked}})
DELETE FROM tx_history
WHERE id IN (SELECT id FROM batch)
