-- purpose: the records of a group of exchanges in one statement on PostgreSQL (PostgresGroupCommit), each as
-- sql/record-done.sql records one: the core's answer and the reply sent, on a row still SENT. Its parameters are that
-- file's, in the same order, each an array with a value per exchange of the group. RETURNING says which GUIDs it
-- recorded (update count 1), every other exchange's record found no SENT row (0).
UPDATE tx
SET state = 'DONE', rsp_code = u.rsp_code, response = u.reply, updated_at = {{relay.ledger.now}}, relay = {{relay.ledger.relay}}
FROM unnest(:#rspCode::varchar[], :#reply::bytea[], :#guid::varchar[]) AS u(rsp_code, reply, guid)
WHERE tx.guid = u.guid AND tx.state = 'SENT'
RETURNING tx.guid
