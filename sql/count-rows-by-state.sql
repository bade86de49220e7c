-- purpose: ledger rows per state and the oldest updated_at of each (GET /metrics, ledger stats); states without rows are absent.
SELECT state, COUNT(*) AS n, MIN(updated_at) AS oldest
FROM tx
GROUP BY state
ORDER BY state
