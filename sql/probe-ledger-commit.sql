-- purpose: whether the ledger takes a commit right now (GET /health, relay_ledger_writable; LedgerCommitCheck): a
-- real write, committed as every ledger write is (on SQLite by the group-commit writer, on PostgreSQL once the
-- synchronous standbys have it), of this relay's one row in ledger_probe, so that the table never grows.
INSERT INTO ledger_probe (relay, probed_at)
VALUES (:#relay, {{relay.ledger.now}})
ON CONFLICT (relay) DO UPDATE SET probed_at = excluded.probed_at
