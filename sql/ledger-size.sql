-- purpose: the ledger's size on disk in bytes, for GET /metrics (relay_ledger_bytes): the database's own figure, read
-- without a scan ({{relay.ledger.bytes}}: SQLite's pages, PostgreSQL's database size; LedgerDialect).
SELECT {{relay.ledger.bytes}} AS bytes
