-- purpose: the rows the dead letter channel may send again: FAILED, certainly not delivered (E902), under the cap; a run takes at most 500.
SELECT guid, tx_code, request
FROM tx
WHERE state = 'FAILED' AND rsp_code = 'E902' AND attempts < :#maxAttempts
ORDER BY updated_at
LIMIT 500
