-- purpose: a GUID's history, each state change with when, by which relay and why, oldest first (GET /ledger/{guid}/history,
-- GET /ledger/{guid}, ledger history, ledger show). It outlives the GUID's row: a purged GUID's ends in 'purged'.
-- Each life of the GUID's row (a claim, and after a purge a new claim) has its history_key (schema.sql): the row's own,
-- and the key of each of its 'purged' history rows. Those are indexed by the bucket of 4096 keys their key falls in, then
-- by GUID (the expression stands so in both schema files): the GUID is looked for in each bucket from the first that
-- holds a purged row to the last, a search of the index each (every 'purged' row has a key: a row deleted before it had
-- one gets it then). The rows written by the history's first version (2026-12-03, before history_key) have none: they
-- are found by the GUID in an index of theirs alone (tx_history_first_version), which no later row enters; the bounds of
-- the buckets pass over their 'purged' rows (a key of none would end the walk before it began: SQLite sorts it first,
-- PostgreSQL last, and a ledger purged by that version has many).
WITH RECURSIVE bucket(b) AS (
    SELECT (SELECT history_key / 4096 FROM tx_history WHERE to_state = 'purged' AND history_key / 4096 >= 0
            ORDER BY history_key / 4096 LIMIT 1)
    UNION ALL
    SELECT b + 1 FROM bucket
    WHERE b < (SELECT history_key / 4096 FROM tx_history WHERE to_state = 'purged' AND history_key / 4096 >= 0
               ORDER BY history_key / 4096 DESC LIMIT 1)),
life(history_key) AS (
    SELECT history_key FROM tx WHERE guid = :#guid
    UNION
    SELECT purged.history_key FROM bucket
    JOIN tx_history purged ON purged.history_key / 4096 = bucket.b AND purged.guid = :#guid AND purged.to_state = 'purged')
SELECT at, from_state, to_state, rsp_code, attempts, relay, cause
FROM (
    SELECT id, at, from_state, to_state, rsp_code, attempts, relay, cause FROM tx_history
    WHERE guid = :#guid AND history_key IN (SELECT history_key FROM life)
    UNION ALL
    SELECT id, at, from_state, to_state, rsp_code, attempts, relay, cause FROM tx_history
    WHERE guid = :#guid AND history_key IS NULL) AS history
ORDER BY id
