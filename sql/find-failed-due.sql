-- purpose: the rows the dead letter channel may send again: FAILED, certainly not delivered (E902), under the cap, the
-- oldest first; a run takes at most :#batchSize (relay.jobs.batch-size) and the next run goes on with the rest.
SELECT guid, tx_code, request
FROM tx
WHERE state = 'FAILED' AND rsp_code = 'E902' AND attempts < :#maxAttempts
ORDER BY updated_at
LIMIT :#batchSize
