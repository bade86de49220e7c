-- purpose: claim a FAILED/E902 row under the cap back to SENT with attempts + 1 before it is sent again.
-- One atomic statement guarded by every condition that made the row due: of two runs, only one wins.
UPDATE tx
SET state = 'SENT', attempts = attempts + 1, updated_at = {{relay.ledger.now}}, relay = {{relay.ledger.relay}}, cause = 'reprocess'
WHERE guid = :#guid AND state = 'FAILED' AND rsp_code = 'E902' AND attempts < :#maxAttempts
