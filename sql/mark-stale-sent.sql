-- purpose: a SENT row older than sent-stale-after belongs to a call that a crash interrupted: make it UNKNOWN/E901
-- so that it is resolved by inquiry, never resent blind. updated_at is kept: the request may have left then.
UPDATE tx
SET state = 'UNKNOWN', rsp_code = 'E901'
WHERE state = 'SENT' AND updated_at <= :#staleCutoff
