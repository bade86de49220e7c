-- purpose: claim a GUID seen for the first time as SENT (attempt 1), committed before the core is called.
-- One atomic statement; the update count decides: 1 = this exchange owns the GUID, 0 = the GUID has a row.
-- Every statement that changes a row names this relay ({{relay.ledger.relay}}, relay.name) and the cause: the schema's
-- triggers write the change into tx_history in the same transaction.
INSERT INTO tx (guid, tx_code, state, request, attempts, created_at, updated_at, relay, cause)
VALUES (:#guid, :#txCode, 'SENT', :#request, 1, {{relay.ledger.now}}, {{relay.ledger.now}}, {{relay.ledger.relay}}, 'channel')
ON CONFLICT (guid) DO NOTHING
