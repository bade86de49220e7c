-- purpose: mark one purge batch on SQLite (the step before sql/sqlite/purge-done.sql, which deletes the rows marked): the
-- DONE rows older than the purge age, at most :#batchSize of them, get cause 'purge' and this relay's name
-- ({{relay.ledger.relay}}), which the history of their deletion records (schema.sql, tx_history_of_delete): a SQLite
-- trigger cannot be told who deletes a row, PostgreSQL's can (sql/postgresql/purge-done.sql needs no mark).
-- UNKNOWN, FAILED, SENT and RECEIVED stay whatever their age. The update count is the rows marked: the batch, as the
-- route counts it (rows-marked), whichever statement deletes them.
-- Both conditions choose the batch, on the database's clock ({{relay.ledger.days-ago}} is now minus :#ageDays,
-- LedgerDialect). The batch is chosen once (MATERIALIZED) and its rows found by their rowid: with the conditions
-- repeated outside SQLite walks every due row of the (state, updated_at) index for each batch, and by the GUID each row
-- costs two more searches of the GUID index.
WITH batch AS MATERIALIZED (
    SELECT rowid AS id FROM tx
    WHERE state = 'DONE' AND updated_at < {{relay.ledger.days-ago}}
    LIMIT :#batchSize)
UPDATE tx
SET cause = 'purge', relay = {{relay.ledger.relay}}
WHERE rowid IN (SELECT id FROM batch)
