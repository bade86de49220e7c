-- The history found by key (2026-12-05): each life of a GUID's row has a key (tx.history_key, from a sequence when
-- claimed), carried by every history row of that life, and the history is found by it; the indexes by GUID and by time,
-- which put each entry at a random place, are replaced. The purge deletes its rows itself (sql/postgresql/purge-done.sql),
-- recorded once per statement; a row marked by the previous release's purge is still deleted as then. Adds what the
-- previous release reads and writes; drops only indexes that no statement names. One transaction: the trigger replaced is
-- never missing for a change made meanwhile.

-- A default set after the column is added leaves the rows already there as they are (no rewrite of the table); those
-- get their key at their first change, by tx_history_key_of_older_row below.
CREATE SEQUENCE tx_history_key_seq;
ALTER TABLE tx ADD COLUMN history_key BIGINT;
ALTER TABLE tx ALTER COLUMN history_key SET DEFAULT nextval('tx_history_key_seq');
ALTER TABLE tx_history ADD COLUMN history_key BIGINT;

CREATE INDEX tx_history_key ON tx_history (history_key);
CREATE INDEX tx_history_purged_by_key ON tx_history ((history_key / 4096), guid) WHERE to_state = 'purged';
CREATE INDEX tx_history_first_version ON tx_history (guid) WHERE history_key IS NULL;
DROP INDEX tx_history_guid;
DROP INDEX tx_history_at;

CREATE OR REPLACE FUNCTION tx_history_write() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE OR REPLACE TRIGGER tx_history_write AFTER INSERT OR UPDATE ON tx
FOR EACH ROW EXECUTE FUNCTION tx_history_write();

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

CREATE FUNCTION tx_history_key_of_older_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.history_key := nextval('tx_history_key_seq');
    RETURN NEW;
END
$$;

CREATE TRIGGER tx_history_key_of_older_row BEFORE UPDATE ON tx
FOR EACH ROW WHEN (NEW.history_key IS NULL) EXECUTE FUNCTION tx_history_key_of_older_row();
