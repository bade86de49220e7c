-- A migration of a release after this build's, for the tests (SchemaLockTest): it adds a column and an index to tx, so
-- it needs tx's ACCESS EXCLUSIVE and SHARE locks, as a real expand of tx would; it only adds, so this build runs on it.
ALTER TABLE tx ADD COLUMN note TEXT;
CREATE INDEX tx_note ON tx (note);
