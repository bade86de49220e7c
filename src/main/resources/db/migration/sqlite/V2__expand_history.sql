-- The history of each GUID, first version (2026-12-03): who made a row's last change and why (tx.relay, tx.cause), and a
-- row per state change (tx_history) written by triggers in the same transaction as the change. Adds only.

ALTER TABLE tx ADD COLUMN relay TEXT;
ALTER TABLE tx ADD COLUMN cause TEXT;

CREATE TABLE tx_history (
    id          INTEGER     PRIMARY KEY,
    guid        VARCHAR(32) NOT NULL,
    at          TEXT        NOT NULL,
    from_state  VARCHAR(8),
    to_state    VARCHAR(8)  NOT NULL,
    rsp_code    VARCHAR(4),
    attempts    INTEGER,
    relay       TEXT,
    cause       TEXT
);

CREATE INDEX tx_history_guid ON tx_history (guid, id);
CREATE INDEX tx_history_at ON tx_history (at);

CREATE TRIGGER tx_history_on_claim AFTER INSERT ON tx
BEGIN
    INSERT INTO tx_history (guid, at, from_state, to_state, rsp_code, attempts, relay, cause)
    VALUES (NEW.guid, strftime('%Y-%m-%d %H:%M:%S', 'now'), NULL, NEW.state, NEW.rsp_code, NEW.attempts, NEW.relay, NEW.cause);
END;

CREATE TRIGGER tx_history_on_change AFTER UPDATE OF state ON tx WHEN OLD.state IS NOT NEW.state
BEGIN
    INSERT INTO tx_history (guid, at, from_state, to_state, rsp_code, attempts, relay, cause)
    VALUES (NEW.guid, strftime('%Y-%m-%d %H:%M:%S', 'now'), OLD.state, NEW.state, NEW.rsp_code, NEW.attempts, NEW.relay, NEW.cause);
END;

CREATE TRIGGER tx_purge_marked AFTER UPDATE OF cause ON tx WHEN NEW.cause = 'purge' AND NEW.state = 'DONE'
BEGIN
    DELETE FROM tx WHERE guid = NEW.guid;
END;

CREATE TRIGGER tx_history_on_delete AFTER DELETE ON tx
BEGIN
    INSERT INTO tx_history (guid, at, from_state, to_state, rsp_code, attempts, relay, cause)
    VALUES (OLD.guid, strftime('%Y-%m-%d %H:%M:%S', 'now'), OLD.state, 'purged', OLD.rsp_code, OLD.attempts,
            CASE WHEN OLD.cause = 'purge' THEN OLD.relay END, CASE WHEN OLD.cause = 'purge' THEN 'purge' ELSE 'manual' END);
END;
