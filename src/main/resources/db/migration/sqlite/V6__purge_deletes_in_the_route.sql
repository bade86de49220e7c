-- The purge's DELETE in the route (2026-12-07, issue 39): the purge marks its batch with its relay's name
-- (sql/sqlite/mark-purge-batch.sql), then deletes the rows so marked in a statement of its own
-- (sql/sqlite/purge-done.sql), found by the index below; no trigger of this schema deletes a row any more. The history of
-- a deleted row is still recorded by tx_history_of_delete, with the relay and cause of the mark. A process of the release
-- before versioned migrations (6a871d4) makes the dropped trigger again at its start (its schema file), which then
-- deletes each row at its mark: the purge counts its batch by the mark, so it goes on either way. Not marked expand: such
-- a relay has no business on a file that a relay of this release owns.

DROP TRIGGER tx_delete_purge_marked;

-- only the rows of a purge batch between its two statements: empty the rest of the time
CREATE INDEX tx_purge_batch ON tx (cause) WHERE cause = 'purge';
