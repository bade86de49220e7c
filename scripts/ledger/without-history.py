#!/usr/bin/env python3
"""Writes into DIR the ledger without the triggers that write the history of claims and changes (and the one that keys a
row claimed before the history, which would otherwise fire at every change): the two schema pictures (what
LedgerWriteCost.java applies) and the migrations that a relay built in DIR runs, the build to measure the history's cost
against, side by side with the same commit (docs/performance.md, "The history of each GUID").

    git worktree add /tmp/nohist HEAD && python3 scripts/ledger/without-history.py /tmp/nohist
    (cd /tmp/nohist && mvn -B -q package -DskipTests && cp target/idempotent-relay.jar /tmp/nohist.jar)
"""
import os, re, sys

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
out = sys.argv[1]
migrations = os.path.join("src", "main", "resources", "db", "migration")
SQLITE = ("tx_history_of_claim", "tx_history_of_change", "tx_history_key_of_older_row")
POSTGRESQL = ("tx_history_write", "tx_history_key_of_older_row")


def without(path, names, pattern):
    """The file at path (under the repository's top) written under out without each trigger named; returns how many went."""
    text, gone = open(os.path.join(here, path)).read(), 0
    for name in names:
        text, n = re.subn(pattern % name, "", text, flags=re.S)
        gone += n
    os.makedirs(os.path.dirname(os.path.join(out, path)) or out, exist_ok=True)
    open(os.path.join(out, path), "w").write(text)
    return gone


sqlite_trigger = r"CREATE TRIGGER (?:IF NOT EXISTS )?%s\b.*?\nEND;\n"
postgresql_trigger = r"CREATE (?:OR REPLACE )?TRIGGER %s\b[^;]*;\n"
assert without("schema.sql", SQLITE, sqlite_trigger) == 3
assert without(os.path.join(migrations, "sqlite", "V4__expand_history_key.sql"), SQLITE, sqlite_trigger) == 3
# the first version's triggers (V2) are dropped by V4 on SQLite; on PostgreSQL V4 replaces V2's tx_history_write
assert without("schema-postgresql.sql", POSTGRESQL, postgresql_trigger) == 2
assert without(os.path.join(migrations, "postgresql", "V2__expand_history.sql"), POSTGRESQL, postgresql_trigger) == 1
assert without(os.path.join(migrations, "postgresql", "V4__expand_history_key.sql"), POSTGRESQL, postgresql_trigger) == 2
