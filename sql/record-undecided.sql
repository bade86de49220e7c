-- purpose: record a call without an answer: UNKNOWN/E901 (sent, outcome unknown) or FAILED/E902 (certainly not sent).
-- The cause stays the claim's (channel or reprocess): the call it made is what this records.
UPDATE tx
SET state = :#newState, rsp_code = :#rspCode, updated_at = {{relay.ledger.now}}, relay = {{relay.ledger.relay}}
WHERE guid = :#guid AND state = 'SENT'
