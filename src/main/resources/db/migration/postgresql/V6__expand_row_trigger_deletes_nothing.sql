-- The purge's DELETE in its route only (2026-12-07, issue 39): the row trigger no longer deletes a row that the purge of
-- a relay made before versioned migrations (before 2026-12-05) marked (cause 'purge' and its relay's name, on a DONE
-- row). Every relay since deletes its batch in its own statement (sql/postgresql/purge-done.sql), and reads and writes
-- nothing this changes: an expand, so relays of version 5 run on beside the upgraded ones. A relay of before 2026-12-05
-- must not run on this ledger any more: its purge would mark rows that nothing deletes. Replacing the function takes no
-- lock on tx.

CREATE OR REPLACE FUNCTION tx_history_write() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    now_utc TEXT := to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS');
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO tx_history (guid, at, from_state, to_state, rsp_code, attempts, relay, cause, history_key)
        VALUES (NEW.guid, now_utc, NULL, NEW.state, NEW.rsp_code, NEW.attempts, NEW.relay, NEW.cause, NEW.history_key);
    ELSIF OLD.state IS DISTINCT FROM NEW.state THEN
        INSERT INTO tx_history (guid, at, from_state, to_state, rsp_code, attempts, relay, cause, history_key)
        VALUES (NEW.guid, now_utc, OLD.state, NEW.state, NEW.rsp_code, NEW.attempts, NEW.relay, NEW.cause, NEW.history_key);
    END IF;
    RETURN NULL;
END
$$;
