-- purpose: whether the ledger takes a write right now (GET /health). Changes no row; it takes the write lock,
-- fails on a read-only or broken database, and runs in a transaction that is rolled back.
UPDATE tx
SET state = state
WHERE 1 = 0
