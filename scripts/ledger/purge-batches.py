#!/usr/bin/env python3
"""The SQLite purge's batches without the relay around them: on a COPY of a ledger (it deletes), batches of the purge's
statement, each its own transaction (BEGIN IMMEDIATE ... COMMIT, synchronous=FULL, WAL), a PASSIVE checkpoint after
every CHECKPOINT rows as the relay's writer does; prints rows/s, CPU per row (user and all) and the WAL file's size.

    cp /tmp/bs/full.db /tmp/copy.db      # the 10-million-row ledger of scripts/bench-scale.sh
    python3 scripts/ledger/purge-batches.py /tmp/copy.db 2000 100 2000 marked

STATEMENT: marked, today's purge on a ledger at version 6 (sql/sqlite/mark-purge-batch.sql, then sql/sqlite/purge-done.sql
deleting the marked rows, each its own transaction, as the route's two ledger-write steps); rowid, the build before (the
batch marked by rowid, deleted by its schema's trigger tx_delete_purge_marked, version 5); guid, the one before that (by
GUID). PRAGMAS="mmap_size=8000000000;cache_size=-262144" sets pragmas on the connection first.
"""
import os, resource, sqlite3, sys, time

path, batch, batches, checkpoint_every = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
kind = sys.argv[5] if len(sys.argv) > 5 else "rowid"
cut = "strftime('%Y-%m-%d %H:%M:%S', 'now', '-7 days')"
statement = {
    "rowid": f"""WITH batch AS MATERIALIZED (SELECT rowid AS id FROM tx WHERE state = 'DONE' AND updated_at < {cut} LIMIT {batch})
UPDATE tx SET cause = 'purge', relay = 'bench' WHERE rowid IN (SELECT id FROM batch)""",
    "marked": f"""WITH batch AS MATERIALIZED (SELECT rowid AS id FROM tx WHERE state = 'DONE' AND updated_at < {cut} LIMIT {batch})
UPDATE tx SET cause = 'purge', relay = 'bench' WHERE rowid IN (SELECT id FROM batch)""",
    "guid": f"""WITH batch AS MATERIALIZED (SELECT guid FROM tx WHERE state = 'DONE' AND updated_at < {cut} LIMIT {batch})
UPDATE tx SET cause = 'purge', relay = 'bench' WHERE guid IN (SELECT guid FROM batch)""",
}[kind]
db = sqlite3.connect(path, isolation_level=None)
for pragma in ["journal_mode=WAL", "synchronous=FULL", "wal_autocheckpoint=0"] + os.environ.get("PRAGMAS", "").split(";"):
    if pragma:
        db.execute("PRAGMA " + pragma)
checkpointer = sqlite3.connect(path, isolation_level=None)
start, before = time.time(), resource.getrusage(resource.RUSAGE_SELF)
rows = since = 0
for _ in range(batches):
    db.execute("BEGIN IMMEDIATE")
    db.execute(statement)
    n = db.execute("SELECT changes()").fetchone()[0]
    db.execute("COMMIT")
    if kind == "marked":
        db.execute("BEGIN IMMEDIATE")
        db.execute("DELETE FROM tx WHERE cause = 'purge' AND state = 'DONE'")
        n = db.execute("SELECT changes()").fetchone()[0]
        db.execute("COMMIT")
    rows, since = rows + n, since + n
    if since >= checkpoint_every:
        checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)")
        since = 0
    if n < batch:
        break
checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)")
took, after = time.time() - start, resource.getrusage(resource.RUSAGE_SELF)
user = after.ru_utime - before.ru_utime
cpu = user + after.ru_stime - before.ru_stime
wal = os.path.getsize(path + "-wal") if os.path.exists(path + "-wal") else 0
print(f"{kind}, batches of {batch}: {rows} rows in {took:.1f} s, {rows / took:.0f} rows/s; CPU {cpu / rows * 1e6:.0f} us a row"
      f" ({user / rows * 1e6:.0f} us of it in user space); WAL file {wal / 1e6:.0f} MB")
