#!/usr/bin/env python3
"""Writes into DIR the two schema files without the triggers that write the history of claims and changes (and the one
that keys a row claimed before the history, which would otherwise fire at every change): the build to measure the
history's cost against, side by side with the same commit (docs/performance.md, "The history of each GUID").

    git worktree add /tmp/nohist HEAD && python3 scripts/ledger/without-history.py /tmp/nohist
    (cd /tmp/nohist && mvn -B -q package -DskipTests && cp target/idempotent-relay.jar /tmp/nohist.jar)
"""
import os, re, sys

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
out = sys.argv[1]
sqlite = open(os.path.join(here, "schema.sql")).read()
for name in ("tx_history_of_claim", "tx_history_of_change", "tx_history_key_of_older_row"):
    sqlite, n = re.subn(r"CREATE TRIGGER IF NOT EXISTS " + name + r"\b.*?\nEND;\n", "", sqlite, flags=re.S)
    assert n == 1, name
open(os.path.join(out, "schema.sql"), "w").write(sqlite)
postgresql = open(os.path.join(here, "schema-postgresql.sql")).read()
for name in ("tx_history_write", "tx_history_key_of_older_row"):
    postgresql, n = re.subn(r"CREATE OR REPLACE TRIGGER " + name + r"\b[^;]*;\n", "", postgresql, flags=re.S)
    assert n == 1, name
open(os.path.join(out, "schema-postgresql.sql"), "w").write(postgresql)
