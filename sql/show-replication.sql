-- purpose: what a commit of this relay's waits for on a PostgreSQL ledger (ReplicationCheck, at start and every
-- relay.db.check-every seconds): this session's synchronous_commit, the server's synchronous_standby_names, and one
-- row per standby streaming from the server (pg_stat_replication, without logical decoding and base backups, which
-- no failover promotes), or one row of NULLs when there is none. A user without the role pg_read_all_stats sees
-- each standby's pid, with its name, state and sync_state NULL. PostgreSQL only.
SELECT current_setting('synchronous_commit') AS synchronous_commit,
       current_setting('synchronous_standby_names') AS standby_names,
       r.pid, r.application_name, r.state, r.sync_state
FROM (SELECT 1) AS server
LEFT JOIN pg_stat_replication AS r
       ON r.state IS DISTINCT FROM 'backup'
      AND r.pid NOT IN (SELECT active_pid FROM pg_replication_slots WHERE slot_type = 'logical' AND active_pid IS NOT NULL)
ORDER BY r.application_name
