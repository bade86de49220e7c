#!/usr/bin/env bash
# Benchmark of channel security: the same load against three relays started one after another on fresh ledgers,
# plain TCP, TLS (--tls-keystore) and mutual TLS (--tls-keystore --tls-truststore), back to back in one run:
#   - 32 persistent connections, new GUIDs: bench --blocking / --tls-* (a thread per connection on a blocking
#     socket for all three, so that only the transport differs), and for plain TCP also the selector bench of
#     scripts/bench.sh, to show what the client model alone changes;
#   - the cost of a connection: bench --reconnect (connect, handshake, one transfer, close), 8 at a time; a TLS
#     session is never resumed, so each handshake is a full one.
# Besides throughput and latency, each run prints the CPU time the relay and the bench spent per transfer: on a
# machine shared with other work the throughput says how much CPU was left over, the CPU per transfer what TLS costs.
# Certificates are made with keytool into a temporary folder (EC P-256, as in the example of docs/security.md).
#   scripts/bench-tls.sh                       # 15 s measured per run, after 5 s of the bench's warm-up
#   DURATION=30 WARMUP=10 PREWARM=20 scripts/bench-tls.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
DURATION=${DURATION:-15}
WARMUP=${WARMUP:-5}
PREWARM=${PREWARM:-10}
CONNECTIONS=${CONNECTIONS:-32}
RECONNECTS=${RECONNECTS:-8}
JAR=target/idempotent-relay.jar
[ -f "$JAR" ] || mvn -B -q package -DskipTests

work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

export RELAY_TLS_KEYSTORE_PASSWORD="bench-$RANDOM-$RANDOM"
export RELAY_TLS_TRUSTSTORE_PASSWORD="$RELAY_TLS_KEYSTORE_PASSWORD"
kt() { keytool -storetype PKCS12 -storepass:env RELAY_TLS_KEYSTORE_PASSWORD "$@" > /dev/null 2>&1; }
kt -genkeypair -alias ca -keyalg EC -groupname secp256r1 -dname "CN=Bench CA" -ext bc:c -validity 2 -keystore "$work/ca.p12"
kt -exportcert -alias ca -rfc -file "$work/ca.pem" -keystore "$work/ca.p12"
kt -importcert -alias ca -file "$work/ca.pem" -noprompt -keystore "$work/trust.p12"
sign() { # NAME DNAME EKU [SAN]
  kt -genkeypair -alias "$1" -keyalg EC -groupname secp256r1 -dname "$2" -validity 2 -keystore "$work/$1.p12"
  kt -certreq -alias "$1" -file "$work/$1.csr" -keystore "$work/$1.p12"
  kt -gencert -alias ca -infile "$work/$1.csr" -outfile "$work/$1.pem" -rfc -validity 2 -ext KU=digitalSignature \
     -ext "EKU=$3" ${4:+-ext "$4"} -keystore "$work/ca.p12"
  kt -importcert -alias ca -file "$work/ca.pem" -noprompt -keystore "$work/$1.p12"
  kt -importcert -alias "$1" -file "$work/$1.pem" -keystore "$work/$1.p12"
}
sign relay "CN=localhost" serverAuth "SAN=dns:localhost,ip:127.0.0.1"
sign bnch "CN=BNCH" clientAuth

echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(java -version 2>&1 | head -1), load average $(cut -d' ' -f1-3 /proc/loadavg)"
core_port=$(free_port)
java -jar "$JAR" core-sim --port "$core_port" > "$work/core.log" 2>&1 &
pids+=($!)

ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; } # user + system CPU of a process, in clock ticks
bench() { # LABEL ARGS...: one run, its summary lines, and the CPU that relay and bench spent per transfer
  local label=$1; shift
  echo "== $label: bench $*"
  local before; before=$(ticks "$relay_pid")
  /usr/bin/time -f "%U %S" -o "$work/bench.cpu" java -jar "$JAR" bench --port "$relay_port" --duration "$DURATION" \
       --warmup "$WARMUP" "$@" > "$work/bench.out" 2>&1 || true
  local relay_ticks=$(( $(ticks "$relay_pid") - before ))
  tail -n 4 "$work/bench.out"
  # every reply of the run, warm-up included (the last progress line), against all the CPU of the run
  local replies; replies=$(grep -E '^ *[0-9]+s ' "$work/bench.out" | tail -n 1 | awk '{print $2}')
  awk -v r="$relay_ticks" -v n="${replies:-0}" -v hz="$(getconf CLK_TCK)" '{ if (n > 0) printf "cpu         relay %.0f us, bench %.0f us per transfer (%d transfers)\n", r / hz * 1e6 / n, ($1 + $2) * 1e6 / n, n }' "$work/bench.cpu"
}

for config in plain tls mtls; do
  relay_port=$(free_port)
  case $config in
    plain) relay_tls=(); client_tls=(--blocking) ;;
    tls)   relay_tls=(--tls-keystore "$work/relay.p12"); client_tls=(--tls-truststore "$work/trust.p12") ;;
    mtls)  relay_tls=(--tls-keystore "$work/relay.p12" --tls-truststore "$work/trust.p12")
           client_tls=(--tls-truststore "$work/trust.p12" --tls-keystore "$work/bnch.p12") ;;
  esac
  java $RELAY_OPTS -jar "$JAR" run --port "$relay_port" --core "http://localhost:$core_port" --db "$work/$config.db" --no-jobs \
       --admin-port "$(free_port)" "${relay_tls[@]}" > "$work/relay-$config.log" 2>&1 &
  relay_pid=$!
  pids+=($relay_pid)
  for _ in $(seq 1 150); do grep -q "listening on port" "$work/relay-$config.log" 2>/dev/null && break; sleep 0.2; done
  grep -q "listening on port" "$work/relay-$config.log" || { echo "the $config relay did not start:"; cat "$work/relay-$config.log"; exit 1; }
  echo
  echo "##### $config relay (pid $relay_pid): ${relay_tls[*]:-plain TCP}; load average $(cut -d' ' -f1-3 /proc/loadavg)"
  java -jar "$JAR" bench --port "$relay_port" --connections "$CONNECTIONS" --duration "$PREWARM" "${client_tls[@]}" > /dev/null 2>&1 || true
  [ "$config" = plain ] && bench "plain, selector" --connections "$CONNECTIONS"
  bench "$config, $CONNECTIONS connections" --connections "$CONNECTIONS" "${client_tls[@]}"
  bench "$config, a new connection per transfer" --connections "$RECONNECTS" --reconnect "${client_tls[@]}"
  echo "relay RSS: $(( $(ps -o rss= -p "$relay_pid" | tr -d ' ') / 1024 )) MiB"
  kill "$relay_pid"; wait "$relay_pid" 2>/dev/null || true
done
