-- purpose: claim a GUID seen for the first time as SENT (attempt 1), committed before the core is called.
-- One atomic statement; the update count decides: 1 = this exchange owns the GUID, 0 = the GUID has a row.
INSERT INTO tx (guid, tx_code, state, request, attempts, created_at, updated_at)
VALUES (:#guid, :#txCode, 'SENT', :#request, 1, {{relay.ledger.now}}, {{relay.ledger.now}})
ON CONFLICT (guid) DO NOTHING
