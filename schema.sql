-- The ledger of the idempotent relay: one row per GUID (SPEC section 5).
-- Applied at every start of the relay and of the one-shot commands: every statement is harmless twice.
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

-- The probe commit of GET /health and relay_ledger_writable (sql/probe-ledger-commit.sql): one row per relay,
-- changed at every probe (probes counts them: SQLite writes nothing for a row updated to the values it has), so that
-- the probe is a real commit, and the table never grows.
CREATE TABLE IF NOT EXISTS ledger_probe (
    relay      VARCHAR(255) NOT NULL PRIMARY KEY,
    probed_at  TEXT         NOT NULL,
    probes     BIGINT       NOT NULL DEFAULT 1
);
