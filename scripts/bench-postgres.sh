#!/usr/bin/env bash
# Benchmark of the ledger's two databases in one run: the C core and the C load of ../shared/bench (built with gcc),
# then, one after another, each on a fresh ledger and with the same load (new GUIDs, CONNECTIONS in all):
#   sqlite      one relay on a SQLite file (WAL, synchronous=FULL, group commit)
#   floor       no relay: pgbench -M prepared runs the relay's claim and record, each its own statement and commit (the
#               history's triggers firing), CONNECTIONS clients; the floor of a design of one statement per commit
#   old-1       one relay of the jar OLD (an earlier build, for a side-by-side run) on PostgreSQL
#   old-2       two relays of the jar OLD on one PostgreSQL database
#   pg-1        one relay on PostgreSQL (fsync on, synchronous_commit on: durable)
#   pg-2        two relays on the same PostgreSQL database, the load split between them
# Each PostgreSQL run prints its throughput, p99, the server's CPU per transfer, the transactions per transfer, and the
# statements the server ran per transfer while measured (pg_stat_statements, nested ones in the triggers included); each
# relay run after the floor also prints its share of the floor's throughput.
# PostgreSQL runs on this machine from its own binaries (apt-get install postgresql), as the user postgres when root.
#   scripts/bench-postgres.sh                       # 15 s measured after 30 s of load, 32 connections
#   OLD=/tmp/old.jar RUNS="floor old-1 pg-1 pg-2" scripts/bench-postgres.sh   # the floor, an earlier build and this one
#   FLOOR_SETUP='alter table tx disable trigger tx_history_write' RUNS=floor scripts/bench-postgres.sh   # a part's cost
#   DURATION=30 WARMUP=60 CONNECTIONS=64 scripts/bench-postgres.sh
#   RUNS="pg-1" PG_OPTS="-c commit_delay=200 -c commit_siblings=5" scripts/bench-postgres.sh   # server settings
#   RELAY_OPTS="-Drelay.db.postgresql.pool-size=32" RUNS="pg-1" scripts/bench-postgres.sh      # JVM options, properties
#   LAUNCHER=bin/idempotent-relay scripts/bench-postgres.sh   # the relays started by the launcher (its JDK, options, cache)
#   PG_CPUS=1 RELAY_CPUS=0 RUNS=pg-1 scripts/bench-postgres.sh   # the server on a CPU of its own (taskset), the relays, the
#                                   # core and the load on the others: the ledger's server as a machine of its own
# While the load warms the relay up, the ledger's new rows per second are printed every 10 s: the JIT's ramp.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
DURATION=${DURATION:-15}
WARMUP=${WARMUP:-30}
CONNECTIONS=${CONNECTIONS:-32}
RUNS=${RUNS:-sqlite floor pg-1 pg-2}
PG_OPTS=${PG_OPTS:-}
JAR=${JAR:-target/idempotent-relay.jar}
pg_pin=(); [ -z "${PG_CPUS:-}" ] || pg_pin=(taskset -c "$PG_CPUS")
pin=(); [ -z "${RELAY_CPUS:-}" ] || pin=(taskset -c "$RELAY_CPUS")
[ -f "$JAR" ] || mvn -B -q package -DskipTests
SHARED=../shared/bench/c
BIN=$(mktemp -d)
gcc -O2 -o "$BIN/fastcore" "$SHARED/fastcore.c"
gcc -O2 -o "$BIN/loadgen" "$SHARED/loadgen.c"
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  as_pg "$PG_BIN/pg_ctl" -D "$work/pg" -m fast stop >/dev/null 2>&1 || true
  rm -rf "$work" "$BIN"
}
trap cleanup EXIT
[ "$(id -u)" = 0 ] && chown postgres "$work"

pg_port=$(free_port)
as_pg "$PG_BIN/initdb" -D "$work/pg" -A trust -U postgres >/dev/null
as_pg "${pg_pin[@]}" "$PG_BIN/pg_ctl" -D "$work/pg" -w -l "$work/pg.log" \
  -o "-p $pg_port -k $work -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=256MB \
      -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all $PG_OPTS" start >/dev/null
pg() { as_pg "$PG_BIN/psql" -h 127.0.0.1 -p "$pg_port" -U postgres -qAt "$@"; }
if [ -n "${LAUNCHER:-}" ]; then relay_cmd=("$LAUNCHER"); jvm="the launcher's JDK"
else relay_cmd=(java $RELAY_OPTS -jar "$JAR"); jvm=$(java -version 2>&1 | head -1); fi
relay_cmd=("${pin[@]}" "${relay_cmd[@]}")
echo "machine: $(nproc) cores, $jvm, PostgreSQL $(pg -c 'show server_version'),"\
     "fsync $(pg -c 'show fsync'), synchronous_commit $(pg -c 'show synchronous_commit'),"\
     "commit_delay $(pg -c 'show commit_delay'), commit_siblings $(pg -c 'show commit_siblings'); relay: ${relay_cmd[*]}${PG_CPUS:+; the server on CPUs $PG_CPUS}${RELAY_CPUS:+, the rest on CPUs $RELAY_CPUS}"

core_port=$(free_port)
"${pin[@]}" "$BIN/fastcore" "$core_port" & pids+=($!)
core="http://127.0.0.1:$core_port"
sqlite_rows() { sqlite3 "$work/bench.db" 'select count(*) from tx' 2>/dev/null || echo '?'; }
pg_rows() { pg -d "$1" -c 'select count(*) from tx'; } # db
posts() { curl -s "$core/_stats" | python3 -c 'import json,sys; print(json.load(sys.stdin)["calls"])'; }

start_relay() { # name db [jar] -> sets relay_port, appends pid (a PostgreSQL ledger migrated first, as an owner would)
  local name=$1 db=$2 cmd=("${relay_cmd[@]}")
  [ -z "${3:-}" ] || cmd=("${pin[@]}" java $RELAY_OPTS -jar "$3")
  case $db in jdbc:postgresql:*) "${cmd[@]}" migrate --db "$db" --db-user postgres > "$work/$name-migrate.log" 2>&1 ;; esac
  relay_port=$(free_port)
  "${cmd[@]}" run --db "$db" --db-user postgres --port "$relay_port" --core "$core" --no-jobs \
    --admin-port "$(free_port)" > "$work/$name.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 150); do grep -qs "listening on port" "$work/$name.log" && return 0; sleep 0.2; done
  cat "$work/$name.log"; exit 1
}

load() { # "count-command" ports... : the connections split between them, warm-up then measured, one line per port
  local count=$1; shift
  local n=$# per=$((CONNECTIONS / $#)) out=() ramp="" before after t
  for port in "$@"; do "${pin[@]}" "$BIN/loadgen" -p "$port" -c "$per" -d "$WARMUP" -w 0 -r 0 > /dev/null & out+=($!); done
  before=$($count); t=$(date +%s%N)
  while sleep 10; kill -0 "${out[0]}" 2>/dev/null; do
    after=$($count); ramp="$ramp $(( (after - before) * 1000000000 / ($(date +%s%N) - t) ))"; before=$after; t=$(date +%s%N)
  done
  wait "${out[@]}"
  echo "  warm-up, new ledger rows/s per 10 s:$ramp"
  out=()
  local relays=("${pids[@]: -$n}") replies=0 line cpu0 cpu1 t0 t1
  [ -z "${STATS_DB:-}" ] || statements_reset
  cpu0="$(ticks "${relays[@]}") $(server_ticks)"; t0=$(date +%s%N)
  for port in "$@"; do "${pin[@]}" "$BIN/loadgen" -p "$port" -c "$per" -d "$DURATION" -w 0 -r 0 > "$work/load-$port.txt" & out+=($!); done
  wait "${out[@]}"
  cpu1="$(ticks "${relays[@]}") $(server_ticks)"; t1=$(date +%s%N)
  for port in "$@"; do line=$(tail -n 1 "$work/load-$port.txt"); echo "  port $port ($per connections): $line"
    replies=$((replies + $(sed -E 's/.* n ([0-9]+) .*/\1/' <<< "$line"))); done
  echo "$cpu0 $cpu1 $((t1 - t0)) $replies $(getconf CLK_TCK)" | awk '{ s = $5 / 1e9; r = $6; if (r == 0) r = 1
    printf "  CPU while measured: relay %.2f cores, %.0f us per reply; server %.2f cores, %.0f us per reply\n",
      ($3 - $1) / $7 / s, ($3 - $1) / $7 / r * 1e6, ($4 - $2) / $7 / s, ($4 - $2) / $7 / r * 1e6 }'
  [ -z "${floor_rate:-}" ] || echo "  $(awk -v r="$replies" -v t=$((t1 - t0)) -v f="$floor_rate" 'BEGIN { printf "%.0f/s, %.2f", r / (t / 1e9), r / (t / 1e9) / f }') of the floor's $floor_rate/s in this run"
  [ -z "${STATS_DB:-}" ] || statements "$STATS_DB" "$replies"
}
statements_reset() { # the server's statement counts and the database's commits start over for the measured seconds
  pg -d "$STATS_DB" -c 'select pg_stat_statements_reset()' > /dev/null
  commits0=$(pg -d "$STATS_DB" -c "select pg_snapshot_xmax(pg_current_snapshot())")
}
statements() { # db transfers: write transactions per transfer (transaction ids the server gave out, read without taking
  # one), and the statements the server ran per transfer, the 8 that took the most time, pgss's own left out
  local commits1
  commits1=$(pg -d "$1" -c "select pg_snapshot_xmax(pg_current_snapshot())")
  echo "  write transactions per transfer: $(awk -v a="$commits0" -v b="$commits1" -v n="$2" 'BEGIN { printf "%.3f", (b - a) / (n > 0 ? n : 1) }')"
  echo "  statements per transfer (calls, server time in us, rows; nested = run by a trigger):"
  pg -d "$1" -F ' | ' -c "select to_char(calls::numeric / $2, 'FM990.000'), to_char(total_exec_time * 1000 / $2, 'FM99990.0'),
      to_char(rows::numeric / $2, 'FM990.000'), case when toplevel then '' else 'nested ' end
      || left(regexp_replace(query, '\s+', ' ', 'g'), 110)
    from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())
      and query not like '%pg_stat_statements_reset%' and query not like '%pg_current_snapshot%'
    order by total_exec_time desc limit 8" | sed 's/^/    /'
}
ticks() { # processes: the CPU they have used so far (user and system, all their threads), in clock ticks
  local p total=0
  for p in "$@"; do total=$((total + $(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$p/stat" 2>/dev/null || echo 0))); done
  echo "$total"
}

server_ticks() { # the server's CPU so far: the postmaster's, its live processes', and that of those it has reaped (a
  # backend of a connection closed meanwhile, an autovacuum worker), which the postmaster's cutime and cstime hold
  local postmaster
  postmaster=$(head -n 1 "$work/pg/postmaster.pid")
  echo $(( $(ticks $(pgrep -P "$postmaster")) + $(awk '{ sub(/^.*\) /, ""); print $12 + $13 + $14 + $15 }' "/proc/$postmaster/stat") ))
}
wal() { # db: commits of the database and WAL syncs of the server since the last reset, per transfer
  pg -d "$1" -c "select 'transactions ' || xact_commit || ', WAL syncs ' || (select wal_sync from pg_stat_wal) || ', WAL syncs per ledger row ' || round((select wal_sync from pg_stat_wal)::numeric / greatest((select count(*) from tx), 1), 2) from pg_stat_database where datname = '$1'"
}
case " $RUNS " in *" sqlite "*)
echo; echo "== sqlite: one relay, $CONNECTIONS connections"
p0=$(posts)
start_relay sqlite "$work/bench.db"; load sqlite_rows "$relay_port"
kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null || true
echo "  ledger rows $(sqlite_rows), core POSTs $(( $(posts) - p0 ))"
;; esac

case " $RUNS " in *" floor "*)
echo; echo "== floor: pgbench -M prepared, the relay's claim and record each its own statement and commit, $CONNECTIONS clients"
pg -c 'create database floor'
pg -d floor -c 'create extension pg_stat_statements'
"${relay_cmd[@]}" migrate --db "jdbc:postgresql://127.0.0.1:$pg_port/floor" --db-user postgres > "$work/floor-migrate.log" 2>&1
# the relay's two statements as sql/claim-new-guid.sql and sql/record-done.sql say them on PostgreSQL, a 200-byte
# request and reply; a GUID per transfer from 64 random bits. The clock ({{relay.ledger.now}}) is in a SQL function,
# which the planner inlines: pgbench takes the colons of its format for variables
pg -d floor -c "create function relay_now() returns text language sql stable as \$f\$ select to_char(now() at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS') \$f\$"
# FLOOR_SETUP: SQL run on the floor's ledger before it, to measure what a part of the schema costs (an index dropped, a
# trigger disabled): FLOOR_SETUP='drop index tx_state_updated_at' RUNS=floor scripts/bench-postgres.sh
if [ -n "${FLOOR_SETUP:-}" ]; then echo "  the ledger changed first: $FLOOR_SETUP"; pg -d floor -c "$FLOOR_SETUP"; fi
cat > "$work/floor.sql" <<'SQL'
\set r random(1, 9000000000000000000)
INSERT INTO tx (guid, tx_code, state, request, attempts, created_at, updated_at, relay, cause) VALUES (lpad(:r::text, 32, '0'), 'TR01', 'SENT', decode(repeat('a1', 200), 'hex'), 1, relay_now(), relay_now(), 'floor', 'channel') ON CONFLICT (guid) DO NOTHING;
UPDATE tx SET state = 'DONE', rsp_code = '0000', response = decode(repeat('b2', 200), 'hex'), updated_at = relay_now(), relay = 'floor' WHERE guid = lpad(:r::text, 32, '0') AND state = 'SENT';
SQL
chmod -R a+rX "$work"
pgbench() { as_pg "${pin[@]}" "$PG_BIN/pgbench" -h 127.0.0.1 -p "$pg_port" -U postgres -n -M prepared -f "$work/floor.sql" \
  -c "$CONNECTIONS" -j 2 "$@" floor; }
pgbench -T "$WARMUP" > "$work/floor-warm.txt" 2>&1 || { cat "$work/floor-warm.txt"; exit 1; }
STATS_DB=floor statements_reset
cpu0=$(server_ticks); t0=$(date +%s%N)
(cd "$work" && pgbench -T "$DURATION" -l --log-prefix="$work/floor-log" > "$work/floor.txt" 2>&1)
cpu1=$(server_ticks); t1=$(date +%s%N)
n=$(cat "$work"/floor-log* | wc -l)
p99=$(cat "$work"/floor-log* | awk '{ print $3 }' | sort -n | awk -v n="$n" 'NR == int(n * 0.99) { printf "%.1f", $1 / 1000 }')
floor_rate=$(awk -v n="$n" -v t=$((t1 - t0)) 'BEGIN { printf "%.0f", n / (t / 1e9) }') # each relay run after it prints its share of it
echo "  transfers $n in $DURATION s: $floor_rate/s, p99 $p99 ms ($(grep -E '^latency average' "$work/floor.txt"))"
echo "$cpu0 $cpu1 $((t1 - t0)) $n $(getconf CLK_TCK)" | awk '{ printf "  CPU while measured: server %.2f cores, %.0f us per transfer\n", ($2 - $1) / $5 / ($3 / 1e9), ($2 - $1) / $5 / $4 * 1e6 }'
statements floor "$n"
;; esac

relays_on_postgres() { # run relays [jar]: a fresh database, that many relays of the jar (this build's without one) on it,
  # the connections split between them; throughput, CPU, statements, then the ledger's rows against the core's POSTs
  local run=$1 n=$2 jar=${3:-} db=${1/-/} ports=() i
  echo; echo "== $run: $n relay(s)${jar:+ of $jar} on one PostgreSQL database, $CONNECTIONS connections split between them"
  pg -c "create database $db"
  pg -d "$db" -c 'create extension pg_stat_statements'
  pg -c "select pg_stat_reset_shared('wal')" > /dev/null
  p0=$(posts)
  for i in $(seq 1 "$n"); do start_relay "$db-$i" "jdbc:postgresql://127.0.0.1:$pg_port/$db" "$jar"; ports+=("$relay_port"); done
  STATS_DB=$db load "pg_rows $db" "${ports[@]}"
  for i in $(seq 1 "$n"); do kill "${pids[-$i]}"; done; for i in $(seq 1 "$n"); do wait "${pids[-$i]}" 2>/dev/null || true; done
  echo "  ledger rows $(pg_rows "$db"), core POSTs $(( $(posts) - p0 ))"
  echo "  PostgreSQL: $(wal "$db")"
}
for run in old-1 pg-1 old-2 pg-2; do
  case " $RUNS " in *" $run "*)
    case $run in old-*) [ -n "${OLD:-}" ] || { echo "$run needs OLD=the jar of the earlier build"; exit 2; }; jar=$OLD ;; *) jar= ;; esac
    relays_on_postgres "$run" "${run#*-}" "$jar" ;;
  esac
done
