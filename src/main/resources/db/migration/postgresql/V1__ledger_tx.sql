-- The ledger as first released on PostgreSQL (2026-12-01): one row per GUID (SPEC sections 5 and 9), with PostgreSQL's
-- own types where SQLite has none (bytea for the messages); updated_at and created_at UTC text in SQLite's
-- datetime('now') format, written by the database's own clock, so that every relay compares ages on one clock.
-- Applied once, by `idempotent-relay migrate` as a role that may change the schema (LedgerMigrations); never edited once
-- released: a change is a migration of its own after the last one. schema-postgresql.sql is the ledger they make.

CREATE TABLE tx (
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
CREATE INDEX tx_state_updated_at ON tx (state, updated_at);
