-- purpose: claim a FAILED GUID (certainly never delivered) back to SENT for one more attempt.
-- One atomic statement guarded by the state it expects; the update count decides the winner.
UPDATE tx
SET state = 'SENT', attempts = attempts + 1, updated_at = {{relay.ledger.now}}, relay = {{relay.ledger.relay}}, cause = 'channel'
WHERE guid = :#guid AND state = 'FAILED'
