#!/usr/bin/env bash
# A/B of relay builds on the plain path: each variant LABEL=JAR[:ROUTES_DIR] is started in turn on a fresh ledger
# against one core simulator, warmed up WARMUP s (10), then measured with the selector bench at 32 connections; prints the
# throughput and the relay's CPU per transfer (its /proc ticks over the measured bench, over every reply of it).
# List a variant more than once to interleave them (ABBA), e.g. against the build before issue 13:
#   git worktree add /tmp/before e95bf27 && (cd /tmp/before && mvn -B -q package -DskipTests)
#   VARIANTS="old=/tmp/before/target/idempotent-relay.jar new=target/idempotent-relay.jar new=target/idempotent-relay.jar \
#             old=/tmp/before/target/idempotent-relay.jar" scripts/bench-ab.sh
# A variant's environment: ENV_<LABEL>="K=V ..." (a label of letters, digits and _). With OTLP_SINK=yes an OTLP/HTTP
# sink answers every export on OTLP_SINK_URL, the way a collector does; traces on, in one run (issue 38):
#   OTLP_SINK=yes ENV_on1="RELAY_TRACING_ENABLED=true OTEL_EXPORTER_OTLP_ENDPOINT=\$OTLP_SINK_URL" \
#   ENV_down="RELAY_TRACING_ENABLED=true OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:9" \
#   VARIANTS="off=target/idempotent-relay.jar on1=target/idempotent-relay.jar down=target/idempotent-relay.jar" scripts/bench-ab.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
BENCH_JAR=${BENCH_JAR:-target/idempotent-relay.jar}
DURATION=${DURATION:-15}
bench_setup
i=0
for v in ${VARIANTS:?VARIANTS=\"LABEL=JAR[:ROUTES_DIR] ...\"}; do
  i=$((i + 1)); label=${v%%=*}; rest=${v#*=}; jar=${rest%%:*}; routes=""; [ "$rest" != "$jar" ] && routes=${rest#*:}
  extra=(); [ -n "$routes" ] && extra=(--routes "$routes")
  port=$(free_port)
  # a log of its own per relay: a background start may not have truncated a shared one before it is read
  env_var="ENV_$label"; variant_env=$(eval echo "${!env_var:-}")
  env $variant_env java $RELAY_OPTS -jar "$jar" run --port "$port" --core "http://localhost:$core_port" --db "$work/$i.db" --no-jobs \
       --admin-port "$(free_port)" "${extra[@]}" > "$work/relay-$i.log" 2>&1 &
  pid=$!; pids+=($pid)
  for _ in $(seq 1 600); do grep -q "listening on port" "$work/relay-$i.log" 2>/dev/null && break; sleep 0.2; done
  java -jar "$BENCH_JAR" bench --port "$port" --connections 32 --duration "${WARMUP:-10}" > /dev/null 2>&1 || true
  t0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  java -jar "$BENCH_JAR" bench --port "$port" --connections 32 --duration "$DURATION" --warmup 5 > "$work/bench.out" 2>&1 || true
  t1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  n=$(grep -E '^ *[0-9]+s ' "$work/bench.out" | tail -n 1 | awk '{print $2}')
  echo "$i $label: $(grep throughput "$work/bench.out" || tail -n 3 "$work/bench.out") | relay cpu" \
       "$(( (t1 - t0) * 1000000 / $(getconf CLK_TCK) / ${n:-1} )) us/transfer | load $(cut -d' ' -f1 /proc/loadavg)"
  kill "$pid"; wait "$pid" 2>/dev/null || true
done
