#!/usr/bin/env bash
# Relays side by side on a noisy host: each variant LABEL=JAR of VARIANTS is started once (its own fresh SQLite ledger, one
# core simulator for all, --no-jobs) and warmed up WARMUP s (60) under the selector bench at 32 connections, one after the
# other; then the load alternates between them, ROUNDS times (8), DURATION s (10) each, the variants' order rotated each
# round, so that every variant is measured in every stretch of the host's speed. Prints each measurement, then each
# variant's median throughput and the median of its per-round ratio to the first variant's. The relays wait idle while
# another is measured. ENV_<LABEL> and OTLP_SINK as in bench-ab.sh, e.g. the traces of issue 38:
#   OTLP_SINK=yes ENV_on1="RELAY_TRACING_ENABLED=true OTEL_EXPORTER_OTLP_ENDPOINT=\$OTLP_SINK_URL" \
#   VARIANTS="off=target/idempotent-relay.jar on1=target/idempotent-relay.jar" scripts/bench-alternate.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
BENCH_JAR=${BENCH_JAR:-target/idempotent-relay.jar}
bench_setup
labels=(); ports=()
for v in ${VARIANTS:?VARIANTS=\"LABEL=JAR ...\"}; do
  label=${v%%=*}; jar=${v#*=}; port=$(free_port)
  env_var="ENV_$label"; variant_env=$(eval echo "${!env_var:-}")
  env $variant_env java $RELAY_OPTS -jar "$jar" run --port "$port" --core "http://localhost:$core_port" --db "$work/$label.db" --no-jobs \
       --admin-port "$(free_port)" > "$work/relay-$label.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 600); do grep -q "listening on port" "$work/relay-$label.log" 2>/dev/null && break; sleep 0.2; done
  java -jar "$BENCH_JAR" bench --port "$port" --connections 32 --duration "${WARMUP:-60}" > /dev/null 2>&1 || true
  labels+=("$label"); ports+=("$port")
done
n=${#labels[@]}
for r in $(seq 1 "${ROUNDS:-8}"); do
  for k in $(seq 0 $((n - 1))); do
    i=$(( (k + r - 1) % n ))
    java -jar "$BENCH_JAR" bench --port "${ports[$i]}" --connections 32 --duration "${DURATION:-10}" --warmup 2 > "$work/bench.out" 2>&1 || true
    echo "round $r ${labels[$i]} $(grep -o 'throughput *[0-9]*' "$work/bench.out" | awk '{print $2}')"
  done
done | tee "$work/rounds"
python3 - "$work/rounds" "${labels[@]}" <<'PY'
import sys, statistics
rounds = {}
for line in open(sys.argv[1]):
    _, r, label, tput = line.split()
    rounds.setdefault(label, {})[int(r)] = int(tput)
first = sys.argv[2]
for label in sys.argv[2:]:
    ratios = [rounds[label][r] / rounds[first][r] for r in rounds[label] if rounds[first].get(r)]
    print(f"{label}: median {statistics.median(rounds[label].values()):.0f}/s, median ratio to {first} {statistics.median(ratios):.2f}x"
          f" (per round {min(ratios):.2f} to {max(ratios):.2f})")
PY
