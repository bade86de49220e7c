-- purpose: the core's inquiry found the transfer: UNKNOWN becomes DONE/0000 with the reply to replay.
UPDATE tx
SET state = 'DONE', rsp_code = '0000', response = :#reply, updated_at = {{relay.ledger.now}}, relay = {{relay.ledger.relay}}, cause = 'resolve'
WHERE guid = :#guid AND state = 'UNKNOWN'
