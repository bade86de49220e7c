-- Not a migration: Flyway runs it on each connection it opens to the ledger (LedgerMigrations). Each statement of a
-- migration waits at most relay.migrate.lock-timeout-ms for its lock: a migration that waits behind a long reader never
-- holds the relays' claims queued behind it for longer; it is rolled back, and `migrate` tries it again after a pause.
SET lock_timeout = ${lock_timeout_ms};
