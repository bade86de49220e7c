-- purpose: who holds up a migration that waited out its lock timeout (LedgerMigrations, in the message of
-- `migrate`): the other sessions holding a lock on a table of the ledger's schema in a transaction older than that
-- timeout (:#lockTimeoutMs), oldest first, five at most. A role without pg_read_all_stats sees another role's session
-- without its state or times (NULL). PostgreSQL only.
SELECT a.pid, a.usename, a.application_name, a.client_addr, a.state, l.mode, c.relname,
       to_char(a.xact_start AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS since,
       extract(epoch FROM now() - a.xact_start)::bigint AS seconds
FROM pg_locks l
JOIN pg_class c ON c.oid = l.relation
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_stat_activity a ON a.pid = l.pid
WHERE l.granted AND l.pid <> pg_backend_pid() AND n.nspname = current_schema() AND c.relkind = 'r'
  AND (a.xact_start IS NULL OR a.xact_start < now() - CAST(:#lockTimeoutMs AS bigint) * interval '1 millisecond')
ORDER BY a.xact_start NULLS LAST, a.pid, c.relname
LIMIT 5
