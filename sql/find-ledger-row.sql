-- purpose: the whole ledger row of one GUID, for an operator (GET /ledger/{guid}, ledger show).
SELECT guid, tx_code, state, rsp_code, request, response, attempts, created_at, updated_at, relay, cause
FROM tx
WHERE guid = :#guid
