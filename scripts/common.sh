# Shell functions and settings the scripts of this folder share; each script sources it after its cd to the repository's top.
# (bin/idempotent-relay keeps its own: it is installed alone beside the jar.)

# a TCP port on 127.0.0.1 that the system gives out as free now
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# a PostgreSQL command as the user postgres when run as root (initdb refuses root), else as the caller
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

# JVM options of a relay that these benchmarks start with java -jar, unless RELAY_OPTS is set: the launcher's heap and
# collector (bin/idempotent-relay adds its compiler options too; LAUNCHER=bin/idempotent-relay, where a script takes it,
# measures with all of them)
RELAY_OPTS=${RELAY_OPTS:--Xms256m -Xmx256m -XX:+UseParallelGC}

# What a side-by-side benchmark of relays stands on, for bench-ab.sh and bench-alternate.sh: a folder $work and the list
# $pids of what it started, both taken away when the script exits; one core simulator of $BENCH_JAR on $core_port; with
# OTLP_SINK=yes an OTLP/HTTP sink that answers every export as a collector does, on $OTLP_SINK_URL (exported, for the
# variants' ENV_<LABEL>)
bench_setup() {
  work=$(mktemp -d); pids=()
  trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"' EXIT
  core_port=$(free_port)
  java -jar "$BENCH_JAR" core-sim --port "$core_port" > "$work/core.log" 2>&1 &
  pids+=($!)
  if [ "${OTLP_SINK:-}" = yes ]; then
    local sink_port; sink_port=$(free_port)
    python3 -c '
import http.server, sys
class Sink(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200); self.send_header("Content-Type", "application/x-protobuf"); self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *args): pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Sink).serve_forever()' "$sink_port" &
    pids+=($!)
    export OTLP_SINK_URL="http://127.0.0.1:$sink_port"
  fi
}
