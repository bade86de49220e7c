-- Not a migration: Flyway runs it on each connection `migrate` opens to the ledger (LedgerMigrations.migrate), never on a
-- relay's own (a setting of the session would stay with the pooled connection and its claims). Each statement of a
-- migration waits at most relay.migrate.lock-timeout-ms for its lock: a migration that waits behind a long reader never
-- holds the relays' claims queued behind it for longer; it is rolled back, and `migrate` tries it again after a pause.
SET lock_timeout = ${lock_timeout_ms};
