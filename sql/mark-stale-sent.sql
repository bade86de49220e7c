-- purpose: a SENT row older than sent-stale-after belongs to a call that a crash interrupted: make it UNKNOWN/E901
-- so that it is resolved by inquiry, never resent blind. updated_at is kept: the request may have left then.
-- The age is measured on the database's clock: {{relay.ledger.seconds-ago}} is now minus :#ageSeconds (LedgerDialect).
UPDATE tx
SET state = 'UNKNOWN', rsp_code = 'E901'
WHERE state = 'SENT' AND updated_at <= {{relay.ledger.seconds-ago}}
