-- purpose: purge one batch: the DONE rows older than the purge age, at most :#batchSize of them, in a short transaction of
-- its own (the purge runs batch after batch until one comes back short); UNKNOWN, FAILED, SENT and RECEIVED stay whatever
-- their age. Each row of the batch is marked as purged by this relay (cause 'purge', {{relay.ledger.relay}}); the schema's
-- trigger deletes the row so marked and records the deletion in tx_history, in this statement. The update count is the
-- rows deleted.
-- Both conditions choose the batch, on the database's clock ({{relay.ledger.days-ago}} is now minus :#ageDays,
-- LedgerDialect). The batch is chosen once (MATERIALIZED) and its rows found by their key: as a plain subquery
-- PostgreSQL may run it again for each row, and with its conditions repeated outside SQLite walks every due row of the
-- (state, updated_at) index for each batch. On PostgreSQL rows that another relay's purge holds are skipped, not waited
-- for, and the rows chosen stay locked until the statement ends ({{relay.ledger.skip-locked}}); on SQLite no other write
-- runs during a statement.
WITH batch AS MATERIALIZED (
    SELECT guid FROM tx
    WHERE state = 'DONE' AND updated_at < {{relay.ledger.days-ago}}
    LIMIT :#batchSize {{relay.ledger.skip-locked}})
UPDATE tx
SET cause = 'purge', relay = {{relay.ledger.relay}}
WHERE guid IN (SELECT guid FROM batch)
