-- purpose: a GUID's history, each state change with when, by which relay and why, oldest first (GET /ledger/{guid}/history,
-- GET /ledger/{guid}, ledger history, ledger show). It outlives the GUID's row: a purged GUID's ends in 'purged'.
SELECT at, from_state, to_state, rsp_code, attempts, relay, cause
FROM tx_history
WHERE guid = :#guid
ORDER BY id
