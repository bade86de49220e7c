-- purpose: purge one batch on SQLite: deletes the DONE rows that sql/sqlite/mark-purge-batch.sql marked (cause 'purge'),
-- found by the index of marked rows (tx_purge_batch), in a short transaction of its own; the purge runs batch after
-- batch until one comes back short. The schema's trigger records each deleted row in tx_history with the relay and cause
-- of its mark. The update count is the rows deleted: the batch, and any rows a run that stopped between its two
-- statements left marked. PostgreSQL runs sql/postgresql/purge-done.sql (no mark): the route names the file of its
-- database, sql/{{relay.ledger.dialect}}/purge-done.sql.
DELETE FROM tx
WHERE cause = 'purge' AND state = 'DONE'
