#!/usr/bin/env bash
# The relay on a bank's week of ledger: the same load (new GUIDs, CONNECTIONS channels, with ../shared/bench's C core and
# C load) on each ledger kind in LEDGERS, one run after another:
#   empty        a new, empty ledger
#   full         a ledger of ROWS DONE rows spread evenly over the last SPREAD_DAYS days (10 million over 10 days: a
#                bank of a million transfers a day keeping --days 7), no timed work (--no-jobs)
#   purge        the same full ledger while the relay's own purge deletes what is older than KEEP_DAYS (3 million of
#                10 million): the timer's first run comes one --purge-every after the start, PURGE_AT seconds into the
#                measured window
#   purge-cron   the same, but the one-shot purge command deletes them beside a relay running with --no-jobs, as from cron
# Each run: WARMUP seconds of load, then DURATION seconds measured (throughput, p50/p99/max), five scrapes of /metrics
# timed after it, with the replies of every
# second of the run (loadgen -s 1) and, every second, the relay's purge progress from /metrics: a stall shows as a dip.
# The full ledger is made once per kind by a generator in SQL (SQLite's recursive WITH through python3's sqlite3,
# PostgreSQL's generate_series), in transactions of a million rows, then copied for each run that needs it.
#   scripts/bench-scale.sh                                  # SQLite and PostgreSQL, 10 million rows
#   ROWS=1000000 LEDGERS=sqlite RUNS="full purge" scripts/bench-scale.sh
#   LAUNCHER=bin/idempotent-relay scripts/bench-scale.sh    # the relays started by the launcher (its JDK, options, cache)
#   WORK=/tmp/bs scripts/bench-scale.sh                     # keeps both full ledgers in /tmp/bs for the next run
# Needs about 4 GB of disk per 10 million rows and kind (WORK, a temporary folder by default), gcc, python3, curl, and
# PostgreSQL's server binaries (apt-get install postgresql) for the postgresql kind.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
ROWS=${ROWS:-10000000}
SPREAD_DAYS=${SPREAD_DAYS:-10}
KEEP_DAYS=${KEEP_DAYS:-7}
CONNECTIONS=${CONNECTIONS:-32}
WARMUP=${WARMUP:-30}
DURATION=${DURATION:-60}
PURGE_AT=${PURGE_AT:-5}
LEDGERS=${LEDGERS:-sqlite postgresql}
RUNS=${RUNS:-empty full purge purge-cron}
JAR=${JAR:-target/idempotent-relay.jar}
[ -f "$JAR" ] || mvn -B -q package -DskipTests
SHARED=../shared/bench/c
BIN=$(mktemp -d)
gcc -O2 -o "$BIN/fastcore" "$SHARED/fastcore.c"
gcc -O2 -o "$BIN/loadgen" "$SHARED/loadgen.c"
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
pids=()
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -z "${pg_port:-}" ] || as_pg "$PG_BIN/pg_ctl" -D "$work/pg" -m fast stop >/dev/null 2>&1 || true
  [ -n "${WORK:-}" ] || rm -rf "$work"
  rm -rf "$BIN"
}
trap cleanup EXIT
[ "$(id -u)" = 0 ] && chown postgres "$work"
if [ -n "${LAUNCHER:-}" ]; then relay_cmd=("$LAUNCHER"); jvm="the launcher's JDK"
else relay_cmd=(java $RELAY_OPTS -jar "$JAR"); jvm=$(java -version 2>&1 | head -1); fi
echo "machine: $(nproc) cores, $(free -g | awk '/Mem/ {print $2}') GiB, $jvm; relay: ${relay_cmd[*]}"
echo "ledger: $ROWS DONE rows over the last $SPREAD_DAYS days, purge of those older than $KEEP_DAYS days;"\
     "load: $CONNECTIONS connections of new GUIDs, ${WARMUP} s warm-up, ${DURATION} s measured"

core_port=$(free_port)
"$BIN/fastcore" "$core_port" & pids+=($!)
core="http://127.0.0.1:$core_port"
posts() { curl -s "$core/_stats" | python3 -c 'import json,sys; print(json.load(sys.stdin)["calls"])'; }

# --- the full ledger, made once per kind ---------------------------------------------------------------------------
sqlite_fill() { # file: the ledger made by migrate, then ROWS rows
  "${relay_cmd[@]}" migrate --db "$1" > /dev/null
  python3 - "$1" "$ROWS" "$((SPREAD_DAYS * 86400))" <<'EOF'
import sqlite3, sys, time
path, rows, spread = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
db = sqlite3.connect(path, isolation_level=None)
db.execute("PRAGMA journal_mode=WAL"); db.execute("PRAGMA synchronous=OFF")
# the request and reply as a relay stores them: 112 and 90 bytes, the GUID at offset 5
# GUIDs as channels choose them, spread over the whole key space (a hash of the row's number), the rows written oldest
# first as a relay writes them; the request and reply as a relay stores them, 112 and 90 bytes, the GUID at offset 5
fill = """
WITH RECURSIVE n(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM n WHERE i < ?)
INSERT INTO tx (guid, tx_code, state, rsp_code, request, response, attempts, created_at, updated_at)
SELECT g, 'TR01', 'DONE', '0000',
       CAST('TR01Q' || g || 'MOB1    1002003004005006200300400500600700000000001000' || printf('%-20s', 'bench prefill') AS BLOB),
       CAST('TR01R' || g || 'MOB10000' || printf('%-16s', 'CR' || i) || '00000009999000020261203000000' AS BLOB),
       1, t, t
FROM (SELECT i, printf('%08X%08X%08X%08X', (i * 2654435761) % 4294967296, (i * 2246822519) % 4294967296,
                       (i * 3266489917) % 4294967296, i) AS g,
             strftime('%Y-%m-%d %H:%M:%S', 'now', '-' || ((? - i) * ? / ?) || ' seconds') AS t FROM n)
"""
start = time.time()
for lo in range(1, rows + 1, 1_000_000):
    db.execute("BEGIN"); db.execute(fill, (lo, min(lo + 999_999, rows), rows, spread, rows)); db.execute("COMMIT")
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
print(f"  filled {rows} rows in {time.time() - start:.0f} s")
EOF
}

pg() { as_pg "$PG_BIN/psql" -h 127.0.0.1 -p "$pg_port" -U postgres -qAt "$@"; }
pg_fill() { # database: the ledger made by migrate, then ROWS rows
  pg -c "create database $1"
  "${relay_cmd[@]}" migrate --db "jdbc:postgresql://127.0.0.1:$pg_port/$1" --db-user postgres > /dev/null
  local start=$SECONDS lo
  for ((lo = 1; lo <= ROWS; lo += 1000000)); do
    pg -d "$1" -c "INSERT INTO tx (guid, tx_code, state, rsp_code, request, response, attempts, created_at, updated_at)
      SELECT g, 'TR01', 'DONE', '0000',
             convert_to('TR01Q' || g || 'MOB1    1002003004005006200300400500600700000000001000' || rpad('bench prefill', 20), 'UTF8'),
             convert_to('TR01R' || g || 'MOB10000' || rpad('CR' || i, 16) || '00000009999000020261203000000', 'UTF8'),
             1, t, t
      FROM (SELECT i, lpad(to_hex((i * 2654435761) % 4294967296), 8, '0') || lpad(to_hex((i * 2246822519) % 4294967296), 8, '0')
                   || lpad(to_hex((i * 3266489917) % 4294967296), 8, '0') || lpad(to_hex(i), 8, '0') AS g,
                   to_char(now() AT TIME ZONE 'UTC' - make_interval(secs => ($ROWS - i)::double precision * $((SPREAD_DAYS * 86400)) / $ROWS),
                           'YYYY-MM-DD HH24:MI:SS') AS t
            FROM generate_series($lo::bigint, $((lo + 999999 < ROWS ? lo + 999999 : ROWS))::bigint) AS i) AS s"
  done
  pg -d "$1" -c "VACUUM ANALYZE"
  echo "  filled $ROWS rows in $((SECONDS - start)) s"
}

# --- one run ----------------------------------------------------------------------------------------------------------
start_relay() { # name db flags... -> sets relay_port and admin_port, appends the relay's pid
  local name=$1 db=$2; shift 2
  relay_port=$(free_port); admin_port=$(free_port)
  "${relay_cmd[@]}" run --db "$db" --db-user postgres --port "$relay_port" --admin-port "$admin_port" --core "$core" \
    --days "$KEEP_DAYS" "$@" > "$work/$name.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 300); do grep -qs "listening on port" "$work/$name.log" && return 0; sleep 0.2; done
  cat "$work/$name.log"; exit 1
}

watch_purge() { # -> a line per second: seconds since the load began, relay_purge_running, relay_purge_run_rows
  local t0=$1
  while :; do
    curl -s "http://127.0.0.1:$admin_port/metrics" | awk -v t="$(python3 -c "import time; print(round(time.time() - $t0))")" \
      '/^relay_purge_running /{r=$2} /^relay_purge_run_rows /{n=$2} END {print t, r, n}'
    sleep 1
  done
}

report() { # name: the measured window, and what each second of the run saw
  python3 - "$work/$1" "$WARMUP" <<'EOF'
import sys
base, warmup = sys.argv[1], int(sys.argv[2])
summary = open(base + ".load").read().split("\n")[0]
seconds = {}
for line in open(base + ".seconds"):
    p = line.split()
    if p and p[0] == "sec":
        seconds[int(p[1])] = (int(p[3]), float(p[5]))
seconds.pop(max(seconds), None)  # the last second is cut short by the run's end
import re
purge = {}
try:
    # the one-shot purge command beside the relay: the seconds it ran, from its start and its summary's duration
    start, line = open(base + ".cron").read().split(" ", 1)
    took = float(re.search(r"deleted in [0-9]+ batch(?:es)?, ([0-9.]+) s", line).group(1))
    for s in range(int(start), int(int(start) + took) + 1):
        purge[s] = 0
except (FileNotFoundError, AttributeError, ValueError):
    pass
try:
    for line in open(base + ".purge"):
        p = line.split()
        if len(p) == 3 and float(p[1]) == 1:
            purge[int(float(p[0]))] = int(float(p[2]))
except FileNotFoundError:
    pass
measured = [s for s in seconds if s >= warmup]
print("  measured:", summary)
per = [seconds[s][0] for s in sorted(measured)]
if per:
    print(f"  replies per second in the measured window: median {sorted(per)[len(per) // 2]}, slowest second {min(per)}")
if purge:
    during = [s for s in sorted(seconds) if s in purge]
    if during:
        first, last = during[0], during[-1]
        rate = (purge[last] - purge[first]) / max(1, last - first) if purge[last] else 0
        print(f"  while the purge ran (seconds {first} to {last} of the run): slowest second {min(seconds[s][0] for s in during)} replies,"
              f" slowest reply {max(seconds[s][1] for s in during):.1f} ms, median second {sorted(seconds[s][0] for s in during)[len(during) // 2]} replies;"
              f" the purge deleted {purge[last]} rows by then, {rate:.0f} rows/s")
print("  replies per second, run from its start:", " ".join(str(seconds[s][0]) for s in sorted(seconds)))
EOF
}

run() { # kind name db [relay flags...]
  local kind=$1 name=$2 db=$3; shift 3
  local p0 t0 watcher cron_pid="" flags=("$@")
  echo; echo "== $kind $name"
  if [ "$name" = purge ]; then flags+=(--purge-every "$((WARMUP + PURGE_AT))"); else flags+=(--no-jobs); fi
  p0=$(posts)
  start_relay "$kind-$name" "$db" "${flags[@]}"
  t0=$(python3 -c 'import time; print(time.time())')
  watch_purge "$t0" > "$work/$kind-$name.purge" & watcher=$!
  "$BIN/loadgen" -p "$relay_port" -c "$CONNECTIONS" -d "$DURATION" -w "$WARMUP" -s 1 \
    > "$work/$kind-$name.load" 2> "$work/$kind-$name.seconds" &
  local load=$!
  if [ "$name" = purge-cron ]; then
    sleep "$((WARMUP + PURGE_AT))"
    ( start=$(date +%s.%N); "${relay_cmd[@]}" purge --db "$db" --db-user postgres --days "$KEEP_DAYS" > "$work/$kind-cron.out" 2>&1 \
        || echo "  the purge command exited $?" >> "$work/$kind-cron.out"
      echo "  the purge command: $(tail -n 1 "$work/$kind-cron.out"), $(python3 -c "print(round($(date +%s.%N) - $start, 1))") s as a process" \
        >> "$work/$kind-cron.out" ) & cron_pid=$!
  fi
  wait "$load"
  [ -z "$cron_pid" ] || { wait "$cron_pid"; tail -n 1 "$work/$kind-cron.out";
    echo "$((WARMUP + PURGE_AT)) $(grep '^purge: ' "$work/$kind-cron.out" | tail -n 1)" > "$work/$kind-$name.cron"; }
  kill "$watcher" 2>/dev/null || true
  if [ "$name" = purge ]; then
    grep -h "purge: " "$work/$kind-$name.log" | sed 's/^.*\(purge: \)/  the relay'"'"'s purge: \1/' || echo "  (no purge run ended within the run)"
  fi
  echo "  GET /metrics after the load, five scrapes: $(for _ in 1 2 3 4 5; do
    curl -s -o /dev/null -w '%{time_total} ' "http://127.0.0.1:$admin_port/metrics"; done |
    python3 -c 'import sys; t = sorted(float(x) * 1000 for x in sys.stdin.read().split()); print("median %.1f ms, max %.1f ms" % (t[2], t[4]))')"
  kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null || true
  report "$kind-$name"
  echo "  core POSTs $(( $(posts) - p0 ))"
}

for kind in $LEDGERS; do
  case $kind in
  sqlite)
    echo; echo "== sqlite: the full ledger"
    # a WORK folder given keeps its full ledger for the next run of the script (a fill of 10 million rows takes minutes)
    if [ -n "${WORK:-}" ] && [ -f "$work/full.db" ] && [ "$(cat "$work/full.rows" 2>/dev/null)" = "$ROWS" ]; then
      echo "  the full ledger of $ROWS rows kept in $work from an earlier run"
    else
      rm -f "$work/full.db"*; sqlite_fill "$work/full.db"; echo "$ROWS" > "$work/full.rows"
    fi
    echo "  $(du -h "$work/full.db" | cut -f1) on disk"
    for name in $RUNS; do
      case $name in
      empty) rm -f "$work/run.db"*; run sqlite empty "$work/run.db" ;;
      *) rm -f "$work/run.db"*; cp "$work/full.db" "$work/run.db"; run sqlite "$name" "$work/run.db" ;;
      esac
    done
    rm -f "$work/run.db"*
    [ -n "${WORK:-}" ] || rm -f "$work/full.db"*
    ;;
  postgresql)
    [ -n "$PG_BIN" ] || { echo "no PostgreSQL server binaries (apt-get install postgresql)"; exit 1; }
    pg_port=$(free_port)
    # a WORK folder given keeps the server with its full ledger for the next run of the script, as for SQLite
    keep_pg=""
    [ -n "${WORK:-}" ] && [ -d "$work/pg" ] && [ "$(cat "$work/pg.rows" 2>/dev/null)" = "$ROWS" ] && keep_pg=1
    if [ -z "$keep_pg" ]; then
      rm -rf "$work/pg" "$work/pg.rows"
      as_pg "$PG_BIN/initdb" -D "$work/pg" -A trust -U postgres >/dev/null
    fi
    as_pg "$PG_BIN/pg_ctl" -D "$work/pg" -w -l "$work/pg.log" -o "-p $pg_port -k $work -c listen_addresses=127.0.0.1 \
      -c max_connections=200 -c shared_buffers=256MB -c max_wal_size=8GB" start >/dev/null
    echo; echo "== postgresql $(pg -c 'show server_version'): the full ledger"
    if [ -n "$keep_pg" ]; then
      echo "  the full ledger of $ROWS rows kept in $work/pg from an earlier run"
    else
      pg_fill fullledger; echo "$ROWS" > "$work/pg.rows"
    fi
    echo "  $(pg -c "select pg_size_pretty(pg_database_size('fullledger'))") on disk"
    for name in $RUNS; do
      pg -c "drop database if exists run"
      case $name in
      empty) pg -c "create database run" ;;
      # a copy of the files (PostgreSQL 15's default, WAL_LOG, would write the whole ledger to the WAL, and the
      # checkpoints it sets off would stall the run that follows), then a checkpoint before the run
      *) pg -c "create database run template fullledger strategy file_copy"; pg -c checkpoint ;;
      esac
      run postgresql "$name" "jdbc:postgresql://127.0.0.1:$pg_port/run"
    done
    ;;
  *) echo "unknown ledger kind $kind (sqlite, postgresql)"; exit 2 ;;
  esac
done
