-- purpose: the newest history row's id, for the purge's pace: every claim and change of state on the ledger adds a
-- history row (schema.sql), by any relay or command, so between two batches the id grows by more than the purge's own
-- deletions only while others write to the ledger. Read from the primary key's end, no scan.
SELECT COALESCE(MAX(id), 0) AS id FROM tx_history
