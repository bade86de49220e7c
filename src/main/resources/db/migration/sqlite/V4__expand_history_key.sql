-- The history found by key (2026-12-05): each life of a GUID's row has a key (tx.history_key, its rowid when claimed),
-- carried by every history row of that life, and the history is found by it; the indexes by GUID and by time, which put
-- each entry at a random place, are replaced. The triggers of the first version are replaced in the same transaction
-- (Flyway runs a SQLite migration in one), so that no change goes without its history row meanwhile. Adds what the
-- previous release reads and writes; drops only indexes and triggers that no statement names.

ALTER TABLE tx ADD COLUMN history_key INTEGER;
ALTER TABLE tx_history ADD COLUMN history_key INTEGER;

CREATE INDEX tx_history_key ON tx_history (history_key);
CREATE INDEX tx_history_purged_by_key ON tx_history (history_key / 4096, guid) WHERE to_state = 'purged';
CREATE INDEX tx_history_first_version ON tx_history (guid) WHERE history_key IS NULL;
DROP INDEX tx_history_guid;
DROP INDEX tx_history_at;

DROP TRIGGER tx_history_on_claim;
DROP TRIGGER tx_history_on_change;
DROP TRIGGER tx_history_on_delete;
DROP TRIGGER tx_purge_marked;

CREATE TRIGGER tx_history_of_claim AFTER INSERT ON tx
BEGIN
    UPDATE tx SET history_key = NEW.rowid WHERE rowid = NEW.rowid;
    INSERT INTO tx_history (guid, at, from_state, to_state, rsp_code, attempts, relay, cause, history_key)
    VALUES (NEW.guid, strftime('%Y-%m-%d %H:%M:%S', 'now'), NULL, NEW.state, NEW.rsp_code, NEW.attempts, NEW.relay, NEW.cause,
            NEW.rowid);
END;

CREATE TRIGGER tx_history_of_change AFTER UPDATE OF state ON tx WHEN OLD.state IS NOT NEW.state
BEGIN
    INSERT INTO tx_history (guid, at, from_state, to_state, rsp_code, attempts, relay, cause, history_key)
    VALUES (NEW.guid, strftime('%Y-%m-%d %H:%M:%S', 'now'), OLD.state, NEW.state, NEW.rsp_code, NEW.attempts, NEW.relay, NEW.cause,
            COALESCE(NEW.history_key, NEW.rowid));
END;

CREATE TRIGGER tx_history_key_of_older_row AFTER UPDATE ON tx WHEN NEW.history_key IS NULL
BEGIN
    UPDATE tx SET history_key = NEW.rowid WHERE rowid = NEW.rowid;
END;

CREATE TRIGGER tx_delete_purge_marked AFTER UPDATE OF cause ON tx WHEN NEW.cause = 'purge' AND NEW.state = 'DONE'
BEGIN
    DELETE FROM tx WHERE rowid = NEW.rowid;
END;

CREATE TRIGGER tx_history_of_delete AFTER DELETE ON tx
BEGIN
    INSERT INTO tx_history (guid, at, from_state, to_state, rsp_code, attempts, relay, cause, history_key)
    VALUES (OLD.guid, strftime('%Y-%m-%d %H:%M:%S', 'now'), OLD.state, 'purged', OLD.rsp_code, OLD.attempts,
            CASE WHEN OLD.cause = 'purge' THEN OLD.relay END, CASE WHEN OLD.cause = 'purge' THEN 'purge' ELSE 'manual' END,
            COALESCE(OLD.history_key, OLD.rowid));
END;
