-- The ledger of the idempotent relay on PostgreSQL, shared by any number of relays (SPEC sections 5 and 9):
-- the same table as schema.sql, with PostgreSQL's own types where SQLite has none (bytea for the messages).
-- Applied at every start of a relay and of the one-shot commands, inside one transaction that first takes
-- an advisory lock (LedgerSchema), so that relays starting together on an empty database apply it once.
-- updated_at and created_at stay UTC text in SQLite's datetime('now') format, written by the database's
-- own clock (relay.ledger.now), so that every relay compares ages on one clock.

CREATE TABLE IF NOT EXISTS tx (
    guid        VARCHAR(32) NOT NULL PRIMARY KEY,
    tx_code     VARCHAR(4)  NOT NULL,
    state       VARCHAR(8)  NOT NULL CHECK (state IN ('RECEIVED', 'SENT', 'DONE', 'UNKNOWN', 'FAILED')),
    rsp_code    VARCHAR(4),
    request     BYTEA       NOT NULL,
    response    BYTEA,
    attempts    INTEGER     NOT NULL DEFAULT 0,
    created_at  TEXT        NOT NULL,
    updated_at  TEXT        NOT NULL
);

-- the timed routes look rows up by state and age
CREATE INDEX IF NOT EXISTS tx_state_updated_at ON tx (state, updated_at);

-- Who made a row's last change and why, set by every statement of the relay that changes a row (sql/*.sql): the relay's
-- name (relay.name) and the cause (channel, resolve, reprocess, stale-sent, purge), for the history below.
ALTER TABLE tx ADD COLUMN IF NOT EXISTS relay TEXT;
ALTER TABLE tx ADD COLUMN IF NOT EXISTS cause TEXT;

-- One row per state change of a GUID (SPEC section 5, tx_history), written by the triggers below in the same transaction
-- as the change, whatever statement made it: no change without its history row, no history row without its change.
-- at is the database's clock at the change; from_state is NULL for a new claim, to_state 'purged' for a deleted row.
-- Kept relay.history.days (90), longer than the DONE rows they describe, and deleted in batches by the purge.
CREATE TABLE IF NOT EXISTS tx_history (
    id          BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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

-- One function for every trigger of tx, as schema.sql's triggers do on SQLite: a new claim, a change of state (an UPDATE
-- that leaves the state as it was adds no row), the purge's mark (cause 'purge' and its relay's name: the row is deleted
-- in the same statement), and a deleted row (by the purge, or by a hand outside the relay: cause 'manual', no relay).
CREATE OR REPLACE FUNCTION tx_history_write() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    now_utc TEXT := to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS');
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO tx_history (guid, at, from_state, to_state, rsp_code, attempts, relay, cause)
        VALUES (NEW.guid, now_utc, NULL, NEW.state, NEW.rsp_code, NEW.attempts, NEW.relay, NEW.cause);
    ELSIF TG_OP = 'UPDATE' THEN
        IF NEW.cause = 'purge' AND NEW.state = 'DONE' THEN
            DELETE FROM tx WHERE guid = NEW.guid;
        ELSIF OLD.state IS DISTINCT FROM NEW.state THEN
            INSERT INTO tx_history (guid, at, from_state, to_state, rsp_code, attempts, relay, cause)
            VALUES (NEW.guid, now_utc, OLD.state, NEW.state, NEW.rsp_code, NEW.attempts, NEW.relay, NEW.cause);
        END IF;
    ELSE
        INSERT INTO tx_history (guid, at, from_state, to_state, rsp_code, attempts, relay, cause)
        VALUES (OLD.guid, now_utc, OLD.state, 'purged', OLD.rsp_code, OLD.attempts,
                CASE WHEN OLD.cause = 'purge' THEN OLD.relay END, CASE WHEN OLD.cause = 'purge' THEN 'purge' ELSE 'manual' END);
    END IF;
    RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER tx_history_write AFTER INSERT OR UPDATE OR DELETE ON tx
FOR EACH ROW EXECUTE FUNCTION tx_history_write();

-- The probe commit of GET /health and relay_ledger_writable (sql/probe-ledger-commit.sql): one row per relay,
-- changed at every probe (probes counts them: SQLite writes nothing for a row updated to the values it has), so that
-- the probe is a real commit, and the table never grows.
CREATE TABLE IF NOT EXISTS ledger_probe (
    relay      VARCHAR(255) NOT NULL PRIMARY KEY,
    probed_at  TEXT         NOT NULL,
    probes     BIGINT       NOT NULL DEFAULT 1
);
