-- The probe commit of GET /health and relay_ledger_writable (2026-12-03, sql/probe-ledger-commit.sql): one row per relay,
-- changed at every probe. Adds only.

CREATE TABLE ledger_probe (
    relay      VARCHAR(255) NOT NULL PRIMARY KEY,
    probed_at  TEXT         NOT NULL,
    probes     BIGINT       NOT NULL DEFAULT 1
);
