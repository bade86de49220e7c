-- purpose: delete DONE rows older than the purge age; UNKNOWN, FAILED, SENT and RECEIVED stay whatever their age.
DELETE FROM tx
WHERE state = 'DONE' AND updated_at < :#purgeCutoff
