-- The history written once per statement (2026-12-06): the group commit claims and records many GUIDs in one statement
-- (sql/postgresql/claim-new-guids.sql, record-dones.sql), and a row trigger called the history's function once per row,
-- a third of the server's time per transfer (docs/performance.md). Two statement triggers replace it, each one INSERT of
-- the statement's rows into tx_history, as tx_history_of_deletes (V4) does for deletes. A row marked by the purge of the
-- release before 2026-12-05 (cause 'purge' on a DONE row) is still deleted as then, by a row trigger whose WHEN leaves
-- every other change without a call. The tables and the columns are as they were: expand only, for the previous release
-- and this one side by side. One transaction: no change goes unrecorded while the triggers are replaced.

CREATE FUNCTION tx_history_of_claims() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO tx_history (guid, at, from_state, to_state, rsp_code, attempts, relay, cause, history_key)
    SELECT guid, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), NULL, state, rsp_code, attempts, relay, cause,
           history_key
    FROM claimed;
    RETURN NULL;
END
$$;

CREATE FUNCTION tx_history_of_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO tx_history (guid, at, from_state, to_state, rsp_code, attempts, relay, cause, history_key)
    SELECT changed.guid, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), was.state, changed.state,
           changed.rsp_code, changed.attempts, changed.relay, changed.cause, changed.history_key
    FROM was JOIN changed ON changed.guid = was.guid
    WHERE was.state IS DISTINCT FROM changed.state;
    RETURN NULL;
END
$$;

CREATE FUNCTION tx_delete_purge_marked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM tx WHERE guid = NEW.guid;
    RETURN NULL;
END
$$;

DROP TRIGGER tx_history_write ON tx;
DROP FUNCTION tx_history_write();

CREATE TRIGGER tx_history_of_claims AFTER INSERT ON tx REFERENCING NEW TABLE AS claimed
FOR EACH STATEMENT EXECUTE FUNCTION tx_history_of_claims();

CREATE TRIGGER tx_history_of_changes AFTER UPDATE ON tx REFERENCING OLD TABLE AS was NEW TABLE AS changed
FOR EACH STATEMENT EXECUTE FUNCTION tx_history_of_changes();

CREATE TRIGGER tx_delete_purge_marked AFTER UPDATE ON tx
FOR EACH ROW WHEN (NEW.cause = 'purge' AND NEW.state = 'DONE') EXECUTE FUNCTION tx_delete_purge_marked();
