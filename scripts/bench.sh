#!/usr/bin/env bash
# Benchmark: the core simulator and a relay on a fresh ledger, then `bench` at 1, 8, 32 and 128
# connections (new GUIDs), and at 32 connections with resends of DONE GUIDs only. Prints the figures
# that docs/performance.md describes. Everything runs on this machine, on loopback.
#   scripts/bench.sh                  # 15 s measured per run, after 5 s of the bench's own warm-up
#   DURATION=30 WARMUP=10 scripts/bench.sh   # longer runs, longer warm-up (WARMUP=0: none)
#   RELAY_OPTS="-Xmx256m" ...         # JVM options of the relay (default: scripts/common.sh); -Dkey=value overrides a property
#   LAUNCHER=bin/idempotent-relay ... # start the relay with the launcher (its JVM, options and cache) instead
#   CONNECTIONS="32" RESENDS=no ...   # which runs
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
DURATION=${DURATION:-15}
WARMUP=${WARMUP:-5}
JAR=target/idempotent-relay.jar
[ -f "$JAR" ] || mvn -B -q package -DskipTests

work=$(mktemp -d)
core_port=$(free_port)
relay_port=$(free_port)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; [ -n "${KEEP_LOG:-}" ] && cp "$work/relay.log" "$KEEP_LOG"; rm -rf "$work"; }
trap cleanup EXIT

echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(java -version 2>&1 | head -1)"
echo "ledger:  $work/bench.db (WAL, synchronous=FULL), disk: $(df -h "$work" | awk 'NR==2{print $1}')"

java -jar "$JAR" core-sim --port "$core_port" > "$work/core.log" 2>&1 &
pids+=($!)
if [ -n "${LAUNCHER:-}" ]; then relay_cmd=("$LAUNCHER"); else relay_cmd=(java $RELAY_OPTS -jar "$JAR"); fi
launched=$(date +%s%N)
"${relay_cmd[@]}" run --port "$relay_port" --core "http://localhost:$core_port" --db "$work/bench.db" --no-jobs --admin-port "$(free_port)" > "$work/relay.log" 2>&1 &
relay_pid=$!
pids+=($relay_pid)
for _ in $(seq 1 1000); do grep -q "listening on port" "$work/relay.log" 2>/dev/null && break; sleep 0.02; done
grep -q "listening on port" "$work/relay.log" || { echo "the relay did not start:"; cat "$work/relay.log"; exit 1; }
echo "relay:   ${relay_cmd[*]} run --no-jobs (pid $relay_pid), listening $(( ($(date +%s%N) - launched) / 1000000 )) ms after launch"

peak_rss=0
run_bench() {
  echo
  echo "== bench --connections $1 --duration $DURATION --warmup $WARMUP --resend-ratio $2"
  java -jar "$JAR" bench --port "$relay_port" --connections "$1" --duration "$DURATION" --warmup "$WARMUP" --resend-ratio "$2" > "$work/bench.out" 2>&1 &
  local bench_pid=$!
  while kill -0 "$bench_pid" 2>/dev/null; do
    rss=$(ps -o rss= -p "$relay_pid" | tr -d ' ')
    [ -n "$rss" ] && [ "$rss" -gt "$peak_rss" ] && peak_rss=$rss
    sleep 1
  done
  wait "$bench_pid" || true
  tail -n 4 "$work/bench.out"
  echo "relay RSS peak so far: $((peak_rss / 1024)) MiB"
}

# cold: the first 15 s after the port opened, as after a restart in a rolling deploy
echo
echo "== cold: bench --connections 32 --duration 15, from the moment the port opened"
java -jar "$JAR" bench --port "$relay_port" --connections 32 --duration 15 > "$work/bench.out" 2>&1 || true
tail -n 4 "$work/bench.out"
echo "warm-up: 90 s at 32 connections (the JIT compiles the hot path)"
java -jar "$JAR" bench --port "$relay_port" --connections 32 --duration 90 > /dev/null 2>&1 || true
for c in ${CONNECTIONS:-1 8 32 128}; do run_bench "$c" 0; done
[ "${RESENDS:-yes}" = no ] || run_bench 32 1
echo
echo "ledger rows: $(sqlite3 "$work/bench.db" 'SELECT COUNT(*) FROM tx' 2>/dev/null || echo '?')"
