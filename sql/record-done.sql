-- purpose: record the core's answer (0000, B2xx or E500) and the reply sent, to be replayed byte for byte.
-- The cause stays the claim's (channel or reprocess): the call it made is what this records.
UPDATE tx
SET state = 'DONE', rsp_code = :#rspCode, response = :#reply, updated_at = {{relay.ledger.now}}, relay = {{relay.ledger.relay}}
WHERE guid = :#guid AND state = 'SENT'
