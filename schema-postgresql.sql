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

-- The probe commit of GET /health and relay_ledger_writable (sql/probe-ledger-commit.sql): one row per relay,
-- changed at every probe (probes counts them: SQLite writes nothing for a row updated to the values it has), so that
-- the probe is a real commit, and the table never grows.
CREATE TABLE IF NOT EXISTS ledger_probe (
    relay      VARCHAR(255) NOT NULL PRIMARY KEY,
    probed_at  TEXT         NOT NULL,
    probes     BIGINT       NOT NULL DEFAULT 1
);
