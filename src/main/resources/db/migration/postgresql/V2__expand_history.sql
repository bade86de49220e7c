-- The history of each GUID, first version (2026-12-03): who made a row's last change and why (tx.relay, tx.cause), and a
-- row per state change (tx_history) written by a trigger in the same transaction as the change. Adds only.

ALTER TABLE tx ADD COLUMN relay TEXT;
ALTER TABLE tx ADD COLUMN cause TEXT;

CREATE TABLE tx_history (
    id          BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    guid        VARCHAR(32) NOT NULL,
    at          TEXT        NOT NULL,
    from_state  VARCHAR(8),
    to_state    VARCHAR(8)  NOT NULL,
    rsp_code    VARCHAR(4),
    attempts    INTEGER,
    relay       TEXT,
    cause       TEXT
);

CREATE INDEX tx_history_guid ON tx_history (guid, id);
CREATE INDEX tx_history_at ON tx_history (at);

CREATE FUNCTION tx_history_write() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    now_utc TEXT := to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS');
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO tx_history (guid, at, from_state, to_state, rsp_code, attempts, relay, cause)
        VALUES (NEW.guid, now_utc, NULL, NEW.state, NEW.rsp_code, NEW.attempts, NEW.relay, NEW.cause);
    ELSIF TG_OP = 'UPDATE' THEN
        IF NEW.cause = 'purge' AND NEW.state = 'DONE' THEN
            DELETE FROM tx WHERE guid = NEW.guid;
        ELSIF OLD.state IS DISTINCT FROM NEW.state THEN
            INSERT INTO tx_history (guid, at, from_state, to_state, rsp_code, attempts, relay, cause)
            VALUES (NEW.guid, now_utc, OLD.state, NEW.state, NEW.rsp_code, NEW.attempts, NEW.relay, NEW.cause);
        END IF;
    ELSE
        INSERT INTO tx_history (guid, at, from_state, to_state, rsp_code, attempts, relay, cause)
        VALUES (OLD.guid, now_utc, OLD.state, 'purged', OLD.rsp_code, OLD.attempts,
                CASE WHEN OLD.cause = 'purge' THEN OLD.relay END, CASE WHEN OLD.cause = 'purge' THEN 'purge' ELSE 'manual' END);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER tx_history_write AFTER INSERT OR UPDATE OR DELETE ON tx
FOR EACH ROW EXECUTE FUNCTION tx_history_write();
