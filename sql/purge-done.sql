-- purpose: delete DONE rows older than the purge age; UNKNOWN, FAILED, SENT and RECEIVED stay whatever their age.
-- The age is measured on the database's clock: {{relay.ledger.days-ago}} is now minus :#ageDays (LedgerDialect).
DELETE FROM tx
WHERE state = 'DONE' AND updated_at < {{relay.ledger.days-ago}}
