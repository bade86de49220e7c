#!/usr/bin/env bash
# Relays side by side on a noisy host: each variant LABEL=JAR of VARIANTS is started once (its own fresh SQLite ledger, one
# core simulator for all, --no-jobs) and warmed up WARMUP s (60) under the selector bench at 32 connections, one after the
# other; then the load alternates between them, ROUNDS times (8), DURATION s (10) each, the variants' order rotated each
# round, so that every variant is measured in every stretch of the host's speed. Prints each measurement, then each
# variant's median throughput and the median of its per-round ratio to the first variant's; then the relay's CPU time
# per reply in each round (scripts/proc-cpu.py around the bench command, warm-up included), its median, ratio to the
# first variant's, and the median by group of threads: a figure that the host's speed moves less than throughput does.
# The relays wait idle while another is measured. BENCH_ARGS go to every bench command (--resend-ratio 1: resends of
# DONE GUIDs). ENV_<LABEL> and OTLP_SINK as in bench-ab.sh, e.g. the traces of issue 38:
#   OTLP_SINK=yes ENV_on1="RELAY_TRACING_ENABLED=true OTEL_EXPORTER_OTLP_ENDPOINT=\$OTLP_SINK_URL" \
#   VARIANTS="off=target/idempotent-relay.jar on1=target/idempotent-relay.jar" scripts/bench-alternate.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
BENCH_JAR=${BENCH_JAR:-target/idempotent-relay.jar}
bench_setup
labels=(); ports=(); relay_pids=()
for v in ${VARIANTS:?VARIANTS=\"LABEL=JAR ...\"}; do
  label=${v%%=*}; jar=${v#*=}; port=$(free_port)
  env_var="ENV_$label"; variant_env=$(eval echo "${!env_var:-}")
  env $variant_env java $RELAY_OPTS -jar "$jar" run --port "$port" --core "http://localhost:$core_port" --db "$work/$label.db" --no-jobs \
       --admin-port "$(free_port)" > "$work/relay-$label.log" 2>&1 &
  pids+=($!); relay_pids+=($!)
  for _ in $(seq 1 600); do grep -q "listening on port" "$work/relay-$label.log" 2>/dev/null && break; sleep 0.2; done
  java -jar "$BENCH_JAR" bench --port "$port" --connections 32 --duration "${WARMUP:-60}" ${BENCH_ARGS:-} > /dev/null 2>&1 || true
  labels+=("$label"); ports+=("$port")
done
n=${#labels[@]}
for r in $(seq 1 "${ROUNDS:-8}"); do
  for k in $(seq 0 $((n - 1))); do
    i=$(( (k + r - 1) % n ))
    python3 scripts/proc-cpu.py "${relay_pids[$i]}" > "$work/cpu.before"
    java -jar "$BENCH_JAR" bench --port "${ports[$i]}" --connections 32 --duration "${DURATION:-10}" --warmup 2 ${BENCH_ARGS:-} > "$work/bench.out" 2>&1 || true
    # every reply of the run, warm-up included (its progress lines count them), and the relay's CPU over the same run
    replies=$(awk '$1 ~ /^[0-9]+s$/ && $3 == "replies" {n = $2} END {print n + 0}' "$work/bench.out")
    echo "round $r ${labels[$i]} $(grep -o 'throughput *[0-9]*' "$work/bench.out" | awk '{print $2}') $replies" \
         "$(python3 scripts/proc-cpu.py "${relay_pids[$i]}" "$work/cpu.before")"
  done
done | tee "$work/rounds"
python3 - "$work/rounds" "${labels[@]}" <<'PY'
import sys, statistics
rounds = {}
per_reply = {}
for line in open(sys.argv[1]):
    _, r, label, tput, replies, *cpu = line.split()
    rounds.setdefault(label, {})[int(r)] = int(tput)
    used = {k: float(v) for k, v in (c.split("=", 1) for c in cpu)}
    if int(replies) > 0:
        per_reply.setdefault(label, {})[int(r)] = {k: v * 1000 / int(replies) for k, v in used.items()}
first = sys.argv[2]
for label in sys.argv[2:]:
    ratios = [rounds[label][r] / rounds[first][r] for r in rounds[label] if rounds[first].get(r)]
    print(f"{label}: median {statistics.median(rounds[label].values()):.0f}/s, median ratio to {first} {statistics.median(ratios):.2f}x"
          f" (per round {min(ratios):.2f} to {max(ratios):.2f})")
if per_reply.get(first):
    print("relay CPU per reply, in µs (median of the rounds; by group of threads, the largest):")
    for label in sys.argv[2:]:
        rows = per_reply.get(label, {})
        ratios = [rows[r]["total"] / per_reply[first][r]["total"] for r in rows if r in per_reply[first] and per_reply[first][r]["total"]]
        groups = sorted({g for row in rows.values() for g in row if g != "total"},
                        key=lambda g: -statistics.median(row.get(g, 0) for row in rows.values()))
        print(f"{label}: {statistics.median(row['total'] for row in rows.values()):.0f} µs, median ratio to {first} "
              f"{statistics.median(ratios):.2f}x (per round {min(ratios):.2f} to {max(ratios):.2f}); "
              + ", ".join(f"{g} {statistics.median(row.get(g, 0) for row in rows.values()):.0f}" for g in groups[:6]))
PY
