-- purpose: whether the ledger takes a commit right now (GET /health, relay_ledger_writable; LedgerCommitCheck): a
-- real write, committed as every ledger write is (on SQLite by the group-commit writer, on PostgreSQL once the
-- synchronous standbys have it), of this relay's one row in ledger_probe, so that the table never grows. The row
-- changes at every probe (probes + 1): SQLite writes no page for a row updated to the values it already has.
INSERT INTO ledger_probe (relay, probed_at, probes)
VALUES (:#relay, {{relay.ledger.now}}, 1)
ON CONFLICT (relay) DO UPDATE SET probed_at = excluded.probed_at, probes = ledger_probe.probes + 1
