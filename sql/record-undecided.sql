-- purpose: record a call without an answer: UNKNOWN/E901 (sent, outcome unknown) or FAILED/E902 (certainly not sent).
UPDATE tx
SET state = :#newState, rsp_code = :#rspCode, updated_at = {{relay.ledger.now}}
WHERE guid = :#guid AND state = 'SENT'
