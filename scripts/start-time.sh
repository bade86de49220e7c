#!/usr/bin/env bash
# Launch to listening: starts the relay STARTS times, one after another, each on a fresh SQLite ledger (or, with
# LEDGER=current, all on one that a first start made and migrated, as a relay restarted on its own ledger) and free ports
# (no core is needed to start), and prints the wall time from the command to its 'listening on port' line (polled
# every 20 ms, as scripts/bench.sh does), then stops it with SIGTERM. docs/performance.md, "Start".
#   scripts/start-time.sh                                   # bin/idempotent-relay run --no-jobs, 5 starts (train it first)
#   STARTS=3 RELAY="java -jar target/idempotent-relay.jar" scripts/start-time.sh
#   ARGS="" scripts/start-time.sh                           # with the timed jobs (Quartz)
#   LEDGER=current scripts/start-time.sh                    # every start on one ledger, made by a first start not timed
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
STARTS=${STARTS:-5}
RELAY=${RELAY:-bin/idempotent-relay}
ARGS=${ARGS---no-jobs}
LEDGER=${LEDGER:-fresh}
[ -f target/idempotent-relay.jar ] || mvn -B -q package -DskipTests
work=$(mktemp -d)
relay_pid=
cleanup() { [ -n "$relay_pid" ] && kill "$relay_pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

first=1
[ "$LEDGER" = current ] && first=0
for i in $(seq "$first" "$STARTS"); do
  [ "$LEDGER" = current ] || rm -f "$work"/start.db*
  rm -f "$work/relay.log"
  ports=("$(free_port)" "$(free_port)" "$(free_port)")
  launched=$(date +%s%N)
  # (a subshell that forgets the EXIT trap and becomes the relay: else, stopped, it ran the trap and removed $work)
  # shellcheck disable=SC2086
  (trap - EXIT; exec $RELAY run $ARGS --db "$work/start.db" --port "${ports[0]}" --core "http://localhost:${ports[1]}" \
      --admin-port "${ports[2]}" > "$work/relay.log" 2>&1) &
  relay_pid=$!
  for _ in $(seq 1 1500); do grep -q "listening on port" "$work/relay.log" 2>/dev/null && break; sleep 0.02; done
  listening=$(date +%s%N)
  grep -q "listening on port" "$work/relay.log" || { echo "the relay did not start:"; cat "$work/relay.log"; exit 1; }
  [ "$i" = 0 ] || echo "start $i: listening $(( (listening - launched) / 1000000 )) ms after launch ($RELAY run $ARGS, $LEDGER ledger)"
  kill "$relay_pid"; wait "$relay_pid" 2>/dev/null || true; relay_pid=
done
