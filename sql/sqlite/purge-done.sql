-- purpose: purge one batch: the DONE rows older than the purge age, at most :#batchSize of them, in a short transaction of
-- its own (the purge runs batch after batch until one comes back short); UNKNOWN, FAILED, SENT and RECEIVED stay whatever
-- their age. SQLite's text; PostgreSQL runs sql/postgresql/purge-done.sql (a plain DELETE there): the route names the file of
-- its database, sql/{{relay.ledger.dialect}}/purge-done.sql.
-- Each row of the batch is marked as purged by this relay (cause 'purge', {{relay.ledger.relay}}); the schema's trigger
-- deletes the row so marked and records the deletion in tx_history, in this statement (a trigger has no other way to
-- know who deletes). The update count is the rows deleted.
-- Both conditions choose the batch, on the database's clock ({{relay.ledger.days-ago}} is now minus :#ageDays,
-- LedgerDialect). The batch is chosen once (MATERIALIZED) and its rows found by their rowid: with the conditions
-- repeated outside SQLite walks every due row of the (state, updated_at) index for each batch, and by the GUID each row
-- costs two more searches of the GUID index. No other write runs during a statement on SQLite.
WITH batch AS MATERIALIZED (
    SELECT rowid AS id FROM tx
    WHERE state = 'DONE' AND updated_at < {{relay.ledger.days-ago}}
    LIMIT :#batchSize)
UPDATE tx
SET cause = 'purge', relay = {{relay.ledger.relay}}
WHERE rowid IN (SELECT id FROM batch)
