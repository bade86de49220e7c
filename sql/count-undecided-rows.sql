-- purpose: the undecided rows per state (RECEIVED, SENT, UNKNOWN, FAILED), each with its oldest updated_at, and the
-- database's clock now, for GET /metrics: read from the (state, updated_at) index, so that a scrape costs as much on a
-- ledger of millions of DONE rows as on an empty one. States without rows are absent. DONE is not counted here.
SELECT state, COUNT(*) AS n, MIN(updated_at) AS oldest, {{relay.ledger.now}} AS now
FROM tx
WHERE state IN ('RECEIVED', 'SENT', 'UNKNOWN', 'FAILED')
GROUP BY state
