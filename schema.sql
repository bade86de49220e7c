-- The ledger of the idempotent relay on SQLite as this build's migrations leave it: one row per GUID (SPEC section 5),
-- and the history of each GUID's state changes. A picture to read, not a file to run: the ledger is made and upgraded
-- only by the versioned migrations in src/main/resources/db/migration/sqlite (`idempotent-relay migrate`, or `run` on
-- the file it owns), and SchemaPictureTest proves that migrating an empty ledger gives exactly what this file describes.
-- Connection settings (WAL, synchronous=FULL, busy timeout) are in the JDBC URL (relay.db.sqlite-url), not here.

CREATE TABLE tx (
    guid        VARCHAR(32) NOT NULL PRIMARY KEY,
    tx_code     VARCHAR(4)  NOT NULL,
    state       VARCHAR(8)  NOT NULL CHECK (state IN ('RECEIVED', 'SENT', 'DONE', 'UNKNOWN', 'FAILED')),
    rsp_code    VARCHAR(4),
    request     BLOB        NOT NULL,
    response    BLOB,
    attempts    INTEGER     NOT NULL DEFAULT 0,
    created_at  TEXT        NOT NULL,
    updated_at  TEXT        NOT NULL,
    -- who made the row's last change and why, set by every statement of the relay that changes a row (sql/*.sql): the
    -- relay's name (relay.name) and the cause (channel, resolve, reprocess, stale-sent, purge), for the history below
    relay       TEXT,
    cause       TEXT,
    -- the key of this life of the GUID's row (its rowid when claimed, set by the claim's trigger below): every history
    -- row of this life carries it, and the history is found by it (sql/find-guid-history.sql)
    history_key INTEGER
);

-- the timed routes look rows up by state and age
CREATE INDEX tx_state_updated_at ON tx (state, updated_at);

-- the purge's batch between its two statements, marked (sql/sqlite/mark-purge-batch.sql) and not yet deleted
-- (sql/sqlite/purge-done.sql): empty the rest of the time
CREATE INDEX tx_purge_batch ON tx (cause) WHERE cause = 'purge';

-- One row per state change of a GUID (SPEC section 5, tx_history), written by the triggers below in the same transaction
-- as the change, whatever statement made it: no change without its history row, no history row without its change.
-- at is the database's clock at the change; from_state is NULL for a new claim, to_state 'purged' for a deleted row.
-- Kept relay.history.days (90), longer than the DONE rows they describe, and deleted in batches by the purge.
-- history_key: the key of the life of the GUID's row that the change belongs to (tx.history_key).
CREATE TABLE tx_history (
    id          INTEGER     PRIMARY KEY,
    guid        VARCHAR(32) NOT NULL,
    at          TEXT        NOT NULL,
    from_state  VARCHAR(8),
    to_state    VARCHAR(8)  NOT NULL,
    rsp_code    VARCHAR(4),
    attempts    INTEGER,
    relay       TEXT,
    cause       TEXT,
    history_key INTEGER
);

-- A GUID's history is found by its row's history_key, and once its row is purged, by its 'purged' row. Both indexes
-- grow where the ledger writes anyway: history_key rises with time, so each history row's entry goes to the index's end.
-- The 'purged' rows are indexed by the bucket of 4096 keys their key falls in, then by GUID: the purge deletes rows in the
-- order of their age, which is the order of their keys, so each batch's entries go to one or two buckets near the end.
-- sql/find-guid-history.sql looks for a GUID in each bucket (a search each, 0.2 s for 900 million keys).
-- An index by GUID alone put each entry at a random place (GUIDs are random): one more page of the index written per
-- change, or per purged row (docs/performance.md). The purge of old history rows takes them in id order, the order they
-- were written. The 4096 stands here and in sql/find-guid-history.sql, whose expression must be this one.
CREATE INDEX tx_history_key ON tx_history (history_key);
CREATE INDEX tx_history_purged_by_key ON tx_history (history_key / 4096, guid) WHERE to_state = 'purged';
-- The history rows of its first version (2026-12-03) have no history_key: found by GUID in an index of their own, which
-- no row written since enters (every trigger below gives its row a key).
CREATE INDEX tx_history_first_version ON tx_history (guid) WHERE history_key IS NULL;

-- a new claim
CREATE TRIGGER tx_history_of_claim AFTER INSERT ON tx
BEGIN
    UPDATE tx SET history_key = NEW.rowid WHERE rowid = NEW.rowid;
    INSERT INTO tx_history (guid, at, from_state, to_state, rsp_code, attempts, relay, cause, history_key)
    VALUES (NEW.guid, strftime('%Y-%m-%d %H:%M:%S', 'now'), NULL, NEW.state, NEW.rsp_code, NEW.attempts, NEW.relay, NEW.cause,
            NEW.rowid);
END;

-- a change of state (an UPDATE that leaves the state as it was adds no row)
CREATE TRIGGER tx_history_of_change AFTER UPDATE OF state ON tx WHEN OLD.state IS NOT NEW.state
BEGIN
    INSERT INTO tx_history (guid, at, from_state, to_state, rsp_code, attempts, relay, cause, history_key)
    VALUES (NEW.guid, strftime('%Y-%m-%d %H:%M:%S', 'now'), OLD.state, NEW.state, NEW.rsp_code, NEW.attempts, NEW.relay, NEW.cause,
            COALESCE(NEW.history_key, NEW.rowid));
END;

-- a row claimed before history_key existed gets it at its first change (the same value its history rows were given)
CREATE TRIGGER tx_history_key_of_older_row AFTER UPDATE ON tx WHEN NEW.history_key IS NULL
BEGIN
    UPDATE tx SET history_key = NEW.rowid WHERE rowid = NEW.rowid;
END;

-- a deleted row: by the purge (sql/sqlite/purge-done.sql deletes the rows sql/sqlite/mark-purge-batch.sql marked with cause
-- 'purge' and its relay's name), or by a hand outside the relay (cause 'manual', no relay)
CREATE TRIGGER tx_history_of_delete AFTER DELETE ON tx
BEGIN
    INSERT INTO tx_history (guid, at, from_state, to_state, rsp_code, attempts, relay, cause, history_key)
    VALUES (OLD.guid, strftime('%Y-%m-%d %H:%M:%S', 'now'), OLD.state, 'purged', OLD.rsp_code, OLD.attempts,
            CASE WHEN OLD.cause = 'purge' THEN OLD.relay END, CASE WHEN OLD.cause = 'purge' THEN 'purge' ELSE 'manual' END,
            COALESCE(OLD.history_key, OLD.rowid));
END;

-- The probe commit of GET /health and relay_ledger_writable (sql/probe-ledger-commit.sql): one row per relay,
-- changed at every probe (probes counts them: SQLite writes nothing for a row updated to the values it has), so that
-- the probe is a real commit, and the table never grows.
CREATE TABLE ledger_probe (
    relay      VARCHAR(255) NOT NULL PRIMARY KEY,
    probed_at  TEXT         NOT NULL,
    probes     BIGINT       NOT NULL DEFAULT 1
);
