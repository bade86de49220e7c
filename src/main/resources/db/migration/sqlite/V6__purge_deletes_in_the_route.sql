-- The purge's DELETE in the route (2026-12-07, issue 39): the purge marks its batch with its relay's name
-- (sql/sqlite/mark-purge-batch.sql), then deletes the rows so marked in a statement of its own
-- (sql/sqlite/purge-done.sql), found by the index below; no trigger deletes a row any more. The history of a deleted row
-- is still recorded by tx_history_of_delete, with the relay and cause of the mark. Not marked expand: a relay of an
-- earlier release, whose purge only marks, would leave its batches in tx (until a purge of this release deletes them).

DROP TRIGGER tx_delete_purge_marked;

-- only the rows of a purge batch between its two statements: empty the rest of the time
CREATE INDEX tx_purge_marked ON tx (cause) WHERE cause = 'purge';
