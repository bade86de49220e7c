-- purpose: the UNKNOWN rows old enough (min-age) for the core to have finished whatever it got; a run takes at most 500.
SELECT guid, request
FROM tx
WHERE state = 'UNKNOWN' AND updated_at <= :#minAgeCutoff
ORDER BY updated_at
LIMIT 500
