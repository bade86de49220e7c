-- purpose: FAILED rows whose attempts reached the cap (relay.reprocess.max-attempts): reprocess never sends them again,
-- so each waits for a person (GET /metrics, relay_ledger_failed_at_cap_rows). Read from the (state, updated_at) index.
SELECT COUNT(*) AS n
FROM tx
WHERE state = 'FAILED' AND attempts >= :#maxAttempts
