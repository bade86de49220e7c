-- purpose: the claims of a group of exchanges in one statement on PostgreSQL (PostgresGroupCommit), each as
-- sql/claim-new-guid.sql claims one: a GUID seen for the first time becomes SENT (attempt 1), committed before its core
-- call. Its parameters are that file's, in the same order, each an array with a value per exchange of the group, in the
-- group's order. The rows go in by GUID, so that two relays' groups take their locks in one order; of a GUID twice in
-- the group the first exchange's row goes in. RETURNING says which GUIDs this statement claimed: each of those is the
-- claim of its first exchange in the group (update count 1), every other exchange's claim lost (0).
INSERT INTO tx (guid, tx_code, state, request, attempts, created_at, updated_at, relay, cause)
SELECT u.guid, u.tx_code, 'SENT', u.request, 1, {{relay.ledger.now}}, {{relay.ledger.now}}, {{relay.ledger.relay}}, 'channel'
FROM unnest(:#guid::varchar[], :#txCode::varchar[], :#request::bytea[]) WITH ORDINALITY AS u(guid, tx_code, request, n)
ORDER BY u.guid, u.n
ON CONFLICT (guid) DO NOTHING
RETURNING guid
