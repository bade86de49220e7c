-- The ledger as first released (2026-11-30): one row per GUID (SPEC section 5), and the index the timed routes read.
-- Applied once, by `idempotent-relay migrate` or by `run` on a SQLite file (LedgerMigrations); never edited once released:
-- a change is a migration of its own after the last one. schema.sql at the repository's top is the ledger they make.

CREATE TABLE tx (
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
CREATE INDEX tx_state_updated_at ON tx (state, updated_at);
