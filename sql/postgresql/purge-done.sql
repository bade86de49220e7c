-- purpose: purge one batch on PostgreSQL (sql/sqlite/purge-done.sql is SQLite's): the DONE rows older than the purge age, at
-- most :#batchSize of them, in a short transaction of its own (the purge runs batch after batch until one comes back
-- short); UNKNOWN, FAILED, SENT and RECEIVED stay whatever their age. The update count is the rows deleted.
-- A plain DELETE, where SQLite first marks each row (for the history of its deletion): on PostgreSQL an UPDATE writes a
-- new version of the row and an entry for it in each index, the GUID's at a random place; with it the purge did a sixth
-- of the rows a second (docs/performance.md). Who deletes is told to the schema's trigger (tx_history_of_deletes, once
-- per statement) by the transaction's setting idempotent_relay.purged_by, set in this statement: it records each deleted
-- row in tx_history as purged by this relay ({{relay.ledger.relay}}), and a DELETE without the setting as cause 'manual'.
-- Both conditions choose the batch, on the database's clock ({{relay.ledger.days-ago}} is now minus :#ageDays,
-- LedgerDialect), and are checked again on each row deleted. The batch's rows are locked as they are chosen, those
-- another relay's purge holds skipped, not waited for, and found by their place in the table (ctid, which a locked row
-- keeps until this transaction ends): no search of the GUID index for each row.
WITH batch AS MATERIALIZED (
    SELECT ctid FROM tx
    WHERE state = 'DONE' AND updated_at < {{relay.ledger.days-ago}}
    LIMIT :#batchSize FOR UPDATE SKIP LOCKED)
DELETE FROM tx
WHERE ctid = ANY (ARRAY(SELECT ctid FROM batch))
  AND state = 'DONE' AND updated_at < {{relay.ledger.days-ago}}
  AND set_config('idempotent_relay.purged_by', {{relay.ledger.relay}}, true) IS NOT NULL
