-- purpose: record the core's answer (0000, B2xx or E500) and the reply sent, to be replayed byte for byte.
UPDATE tx
SET state = 'DONE', rsp_code = :#rspCode, response = :#reply, updated_at = {{relay.ledger.now}}
WHERE guid = :#guid AND state = 'SENT'
