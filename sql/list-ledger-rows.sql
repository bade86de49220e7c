-- purpose: the ledger rows in one state, least recently changed first, for an operator (GET /ledger, ledger list).
SELECT guid, tx_code, state, rsp_code, request, response, attempts, created_at, updated_at, relay, cause
FROM tx
WHERE state = :#state
ORDER BY updated_at, guid
LIMIT :#limit
