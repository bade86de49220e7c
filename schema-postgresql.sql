-- The ledger of the idempotent relay on PostgreSQL as this build's migrations leave it, shared by any number of relays
-- (SPEC sections 5 and 9): the same tables as schema.sql, with PostgreSQL's own types where SQLite has none (bytea for
-- the messages). A picture to read, not a file to run: the ledger is made and upgraded only by the versioned migrations
-- in src/main/resources/db/migration/postgresql, by `idempotent-relay migrate` run as a role that may change the schema
-- (docs/several-relays.md); the relays run as one that may not. Quartz's tables, made by the same migrations, are in
-- schema-quartz-postgresql.sql. SchemaPictureTest proves that migrating an empty database gives exactly these two files.
-- updated_at and created_at are UTC text in SQLite's datetime('now') format, written by the database's own clock
-- (relay.ledger.now), so that every relay compares ages on one clock.

-- the key of each life of a GUID's row (tx.history_key)
CREATE SEQUENCE tx_history_key_seq;

CREATE TABLE tx (
    guid        VARCHAR(32) NOT NULL PRIMARY KEY,
    tx_code     VARCHAR(4)  NOT NULL,
    state       VARCHAR(8)  NOT NULL CHECK (state IN ('RECEIVED', 'SENT', 'DONE', 'UNKNOWN', 'FAILED')),
    rsp_code    VARCHAR(4),
    request     BYTEA       NOT NULL,
    response    BYTEA,
    attempts    INTEGER     NOT NULL DEFAULT 0,
    created_at  TEXT        NOT NULL,
    updated_at  TEXT        NOT NULL,
    -- who made the row's last change and why, set by every statement of the relay that changes a row (sql/*.sql): the
    -- relay's name (relay.name) and the cause (channel, resolve, reprocess, stale-sent, purge), for the history below
    relay       TEXT,
    cause       TEXT,
    -- the key of this life of the GUID's row, from the sequence when claimed: every history row of this life carries it,
    -- and the history is found by it (sql/find-guid-history.sql). A row claimed before the key existed has none until its
    -- first change (tx_history_key_of_older_row below).
    history_key BIGINT      DEFAULT nextval('tx_history_key_seq')
);

-- the timed routes look rows up by state and age
CREATE INDEX tx_state_updated_at ON tx (state, updated_at);

-- One row per state change of a GUID (SPEC section 5, tx_history), written by the triggers below in the same transaction
-- as the change, whatever statement made it: no change without its history row, no history row without its change.
-- at is the database's clock at the change; from_state is NULL for a new claim, to_state 'purged' for a deleted row.
-- Kept relay.history.days (90), longer than the DONE rows they describe, and deleted in batches by the purge.
-- history_key: the key of the life of the GUID's row that the change belongs to (tx.history_key).
CREATE TABLE tx_history (
    id          BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    guid        VARCHAR(32) NOT NULL,
    at          TEXT        NOT NULL,
    from_state  VARCHAR(8),
    to_state    VARCHAR(8)  NOT NULL,
    rsp_code    VARCHAR(4),
    attempts    INTEGER,
    relay       TEXT,
    cause       TEXT,
    history_key BIGINT
);

-- A GUID's history is found by its row's history_key, and once its row is purged, by its 'purged' row. Both indexes
-- grow where the ledger writes anyway: history_key rises with time, so each history row's entry goes to the index's end.
-- The 'purged' rows are indexed by the bucket of 4096 keys their key falls in, then by GUID: the purge deletes rows in the
-- order of their age, which is the order of their keys, so each batch's entries go to one or two buckets near the end.
-- sql/find-guid-history.sql looks for a GUID in each bucket. An index by GUID alone put each entry at a random place
-- (GUIDs are random): one more page of the index written per change, or per purged row (docs/performance.md). The purge
-- of old history rows takes them in id order, the order they were written. The 4096 stands here, in schema.sql and in
-- sql/find-guid-history.sql, whose expression must be this one.
CREATE INDEX tx_history_key ON tx_history (history_key);
CREATE INDEX tx_history_purged_by_key ON tx_history ((history_key / 4096), guid) WHERE to_state = 'purged';
-- The history rows of its first version (2026-12-03) have no history_key: found by GUID in an index of their own, which
-- no row written since enters (every trigger below gives its row a key).
CREATE INDEX tx_history_first_version ON tx_history (guid) WHERE history_key IS NULL;

-- One function for the row triggers of tx, as schema.sql's triggers do on SQLite: a new claim, and a change of state (an
-- UPDATE that leaves the state as it was adds no row). A row marked by the purge of the release before 2026-12-05 (cause
-- 'purge' and its relay's name, on a DONE row: a relay not yet upgraded beside upgraded ones) is deleted in the same
-- statement, as then; this release's purge deletes its rows itself (sql/postgresql/purge-done.sql).
CREATE FUNCTION tx_history_write() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    now_utc TEXT := to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS');
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO tx_history (guid, at, from_state, to_state, rsp_code, attempts, relay, cause, history_key)
        VALUES (NEW.guid, now_utc, NULL, NEW.state, NEW.rsp_code, NEW.attempts, NEW.relay, NEW.cause, NEW.history_key);
    ELSIF NEW.cause = 'purge' AND NEW.state = 'DONE' THEN
        DELETE FROM tx WHERE guid = NEW.guid;
    ELSIF OLD.state IS DISTINCT FROM NEW.state THEN
        INSERT INTO tx_history (guid, at, from_state, to_state, rsp_code, attempts, relay, cause, history_key)
        VALUES (NEW.guid, now_utc, OLD.state, NEW.state, NEW.rsp_code, NEW.attempts, NEW.relay, NEW.cause, NEW.history_key);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER tx_history_write AFTER INSERT OR UPDATE ON tx
FOR EACH ROW EXECUTE FUNCTION tx_history_write();

-- Deleted rows, once per statement (one INSERT for a purge's whole batch, not a call per row): by the purge, which names
-- itself in the transaction's setting idempotent_relay.purged_by (sql/postgresql/purge-done.sql); by an earlier
-- release's purge, which marked the row (cause 'purge' and its relay); or by a hand outside the relay (cause 'manual',
-- no relay).
CREATE FUNCTION tx_history_of_deletes() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    now_utc TEXT := to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS');
    purged_by TEXT := NULLIF(current_setting('idempotent_relay.purged_by', true), '');
BEGIN
    INSERT INTO tx_history (guid, at, from_state, to_state, rsp_code, attempts, relay, cause, history_key)
    SELECT guid, now_utc, state, 'purged', rsp_code, attempts,
           COALESCE(purged_by, CASE WHEN cause = 'purge' THEN relay END),
           CASE WHEN purged_by IS NOT NULL OR cause = 'purge' THEN 'purge' ELSE 'manual' END,
           -- a row claimed before history_key existed and never changed since gets its key now, so that its 'purged'
           -- row is found (sql/find-guid-history.sql)
           COALESCE(history_key, nextval('tx_history_key_seq'))
    FROM gone;
    RETURN NULL;
END
$$;

CREATE TRIGGER tx_history_of_deletes AFTER DELETE ON tx REFERENCING OLD TABLE AS gone
FOR EACH STATEMENT EXECUTE FUNCTION tx_history_of_deletes();

-- A row claimed before history_key existed gets its key at its first change, before the change is recorded.
CREATE FUNCTION tx_history_key_of_older_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.history_key := nextval('tx_history_key_seq');
    RETURN NEW;
END
$$;

CREATE TRIGGER tx_history_key_of_older_row BEFORE UPDATE ON tx
FOR EACH ROW WHEN (NEW.history_key IS NULL) EXECUTE FUNCTION tx_history_key_of_older_row();

-- The probe commit of GET /health and relay_ledger_writable (sql/probe-ledger-commit.sql): one row per relay,
-- changed at every probe (probes counts them: SQLite writes nothing for a row updated to the values it has), so that
-- the probe is a real commit, and the table never grows.
CREATE TABLE ledger_probe (
    relay      VARCHAR(255) NOT NULL PRIMARY KEY,
    probed_at  TEXT         NOT NULL,
    probes     BIGINT       NOT NULL DEFAULT 1
);
