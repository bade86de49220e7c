-- The ledger of the idempotent relay: one row per GUID (SPEC section 5), and the history of each GUID's state changes.
-- Applied at every start of the relay and of the one-shot commands: every statement is harmless twice, and brings a
-- ledger made by an earlier version up to this one without touching its rows.
-- Connection settings (WAL, synchronous=FULL, busy timeout) are in the JDBC URL, not here.

CREATE TABLE IF NOT EXISTS tx (
    guid        VARCHAR(32) NOT NULL PRIMARY KEY,
    tx_code     VARCHAR(4)  NOT NULL,
    state       VARCHAR(8)  NOT NULL CHECK (state IN ('RECEIVED', 'SENT', 'DONE', 'UNKNOWN', 'FAILED')),
    rsp_code    VARCHAR(4),
    request     BLOB        NOT NULL,
    response    BLOB,
    attempts    INTEGER     NOT NULL DEFAULT 0,
    created_at  TEXT        NOT NULL,
    updated_at  TEXT        NOT NULL
);

-- the timed routes look rows up by state and age
CREATE INDEX IF NOT EXISTS tx_state_updated_at ON tx (state, updated_at);

-- Who made a row's last change and why, set by every statement of the relay that changes a row (sql/*.sql): the relay's
-- name (relay.name) and the cause (channel, resolve, reprocess, stale-sent, purge), for the history below. Added to a
-- ledger of an earlier version as columns (SQLite has no ADD COLUMN IF NOT EXISTS: LedgerSchema passes over the error
-- that the column is there already).
ALTER TABLE tx ADD COLUMN relay TEXT;
ALTER TABLE tx ADD COLUMN cause TEXT;

-- One row per state change of a GUID (SPEC section 5, tx_history), written by the triggers below in the same transaction
-- as the change, whatever statement made it: no change without its history row, no history row without its change.
-- at is the database's clock at the change; from_state is NULL for a new claim, to_state 'purged' for a deleted row.
-- Kept relay.history.days (90), longer than the DONE rows they describe, and deleted in batches by the purge.
CREATE TABLE IF NOT EXISTS tx_history (
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

-- a GUID's history, oldest first
CREATE INDEX IF NOT EXISTS tx_history_guid ON tx_history (guid, id);
-- the purge finds the history rows past relay.history.days
CREATE INDEX IF NOT EXISTS tx_history_at ON tx_history (at);

-- a new claim
CREATE TRIGGER IF NOT EXISTS tx_history_on_claim AFTER INSERT ON tx
BEGIN
    INSERT INTO tx_history (guid, at, from_state, to_state, rsp_code, attempts, relay, cause)
    VALUES (NEW.guid, strftime('%Y-%m-%d %H:%M:%S', 'now'), NULL, NEW.state, NEW.rsp_code, NEW.attempts, NEW.relay, NEW.cause);
END;

-- a change of state (an UPDATE that leaves the state as it was adds no row)
CREATE TRIGGER IF NOT EXISTS tx_history_on_change AFTER UPDATE OF state ON tx WHEN OLD.state IS NOT NEW.state
BEGIN
    INSERT INTO tx_history (guid, at, from_state, to_state, rsp_code, attempts, relay, cause)
    VALUES (NEW.guid, strftime('%Y-%m-%d %H:%M:%S', 'now'), OLD.state, NEW.state, NEW.rsp_code, NEW.attempts, NEW.relay, NEW.cause);
END;

-- The purge (sql/purge-done.sql) marks each row of its batch with cause 'purge' and its relay's name; this deletes the
-- row so marked, in the same statement, and the trigger after it records the deletion with that relay and cause.
CREATE TRIGGER IF NOT EXISTS tx_purge_marked AFTER UPDATE OF cause ON tx WHEN NEW.cause = 'purge' AND NEW.state = 'DONE'
BEGIN
    DELETE FROM tx WHERE guid = NEW.guid;
END;

-- a deleted row: by the purge, or by a hand outside the relay (cause 'manual', no relay)
CREATE TRIGGER IF NOT EXISTS tx_history_on_delete AFTER DELETE ON tx
BEGIN
    INSERT INTO tx_history (guid, at, from_state, to_state, rsp_code, attempts, relay, cause)
    VALUES (OLD.guid, strftime('%Y-%m-%d %H:%M:%S', 'now'), OLD.state, 'purged', OLD.rsp_code, OLD.attempts,
            CASE WHEN OLD.cause = 'purge' THEN OLD.relay END, CASE WHEN OLD.cause = 'purge' THEN 'purge' ELSE 'manual' END);
END;

-- The probe commit of GET /health and relay_ledger_writable (sql/probe-ledger-commit.sql): one row per relay,
-- changed at every probe (probes counts them: SQLite writes nothing for a row updated to the values it has), so that
-- the probe is a real commit, and the table never grows.
CREATE TABLE IF NOT EXISTS ledger_probe (
    relay      VARCHAR(255) NOT NULL PRIMARY KEY,
    probed_at  TEXT         NOT NULL,
    probes     BIGINT       NOT NULL DEFAULT 1
);
