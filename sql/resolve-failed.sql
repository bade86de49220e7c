-- purpose: the core's inquiry does not know the transfer (404): UNKNOWN becomes FAILED/E902, free to be sent again.
UPDATE tx
SET state = 'FAILED', rsp_code = 'E902', updated_at = {{relay.ledger.now}}, relay = {{relay.ledger.relay}}, cause = 'resolve'
WHERE guid = :#guid AND state = 'UNKNOWN'
