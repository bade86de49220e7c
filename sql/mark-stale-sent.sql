-- purpose: a SENT row older than sent-stale-after belongs to a call that a crash interrupted: make it UNKNOWN/E901
-- so that it is resolved by inquiry, never resent blind. updated_at is kept: the request may have left then.
-- One batch of at most :#batchSize rows, in a short transaction of its own (resolve runs batch after batch until one
-- comes back short). Both conditions choose the batch, on the database's clock ({{relay.ledger.seconds-ago}} is now
-- minus :#ageSeconds, LedgerDialect), chosen once and its rows found by their key, as sql/sqlite/purge-done.sql says.
WITH batch AS MATERIALIZED (
    SELECT guid FROM tx
    WHERE state = 'SENT' AND updated_at <= {{relay.ledger.seconds-ago}}
    LIMIT :#batchSize {{relay.ledger.skip-locked}})
UPDATE tx
SET state = 'UNKNOWN', rsp_code = 'E901', relay = {{relay.ledger.relay}}, cause = 'stale-sent'
WHERE guid IN (SELECT guid FROM batch)
