#!/usr/bin/env bash
# Demo of docs/several-relays.md: a PostgreSQL server, two relays on it, a transfer sent to one and
# resent to the other (the stored reply, the core called once), then one relay killed and the other still serving.
# Everything on this machine, on loopback; it stops what it started. Needs PostgreSQL's server binaries
# (Debian: apt-get install postgresql) and target/idempotent-relay.jar (mvn -B package -DskipTests).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
JAR=target/idempotent-relay.jar
[ -f "$JAR" ] || mvn -B -q package -DskipTests
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  as_pg "$PG_BIN/pg_ctl" -D "$work/pg" -m fast stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
[ "$(id -u)" = 0 ] && chown postgres "$work"

echo "== a PostgreSQL server on port 55432 (fsync and synchronous_commit on, as a ledger needs)"
as_pg "$PG_BIN/initdb" -D "$work/pg" -A trust -U postgres >/dev/null
as_pg "$PG_BIN/pg_ctl" -D "$work/pg" -w -l "$work/pg.log" -o "-p 55432 -k $work -c listen_addresses=127.0.0.1" start >/dev/null
DB="jdbc:postgresql://127.0.0.1:55432/postgres"

echo "== the ledger made by migrate (the one command that changes the schema; the relays only read its version)"
java -jar "$JAR" migrate --db "$DB" --db-user postgres

echo "== relay A on 9101 (with the core simulator on 9201), relay B on 9102, one ledger"
java -jar "$JAR" run --db "$DB" --db-user postgres --port 9101 --admin-port 9181 --core-sim > "$work/a.log" 2>&1 &
pids+=($!); relay_a=$!
java -jar "$JAR" run --db "$DB" --db-user postgres --port 9102 --admin-port 9182 --core http://localhost:9201 > "$work/b.log" 2>&1 &
pids+=($!)
for log in a b; do
  for _ in $(seq 1 150); do grep -q "listening on port" "$work/$log.log" && break; sleep 0.2; done
  grep "listening on port" "$work/$log.log" || { cat "$work/$log.log"; exit 1; }
done

GUID=0123456789ABCDEF0123456789ABCDEF
echo "== send to A, resend the same GUID to B"
first=$(java -jar "$JAR" send --port 9101 --guid "$GUID" --from 1002003004005006 --to 2003004005006007 --amount 10000 --memo "lunch money" | grep reply)
again=$(java -jar "$JAR" send --port 9102 --guid "$GUID" --from 1002003004005006 --to 2003004005006007 --amount 10000 --memo "lunch money" | grep reply)
printf '%s\n%s\n' "$first" "$again"
stats=$(curl -s localhost:9201/_stats)
echo "core: $stats"
# (.ci/run runs this demo: it fails unless the resend got the same reply and the core was called once)
[ "$first" = "$again" ] || { echo "the resend to B got another reply"; exit 1; }
case "$stats" in *'"calls":1,'*) ;; *) echo "the core was not called exactly once"; exit 1 ;; esac

echo "== kill relay B (SIGKILL); A still serves, and its ledger is the same"
kill -9 "${pids[1]}"
java -jar "$JAR" send --port 9101 --guid 1123456789ABCDEF0123456789ABCDEF --from 1002003004005006 --to 2003004005006007 --amount 500 | grep rsp_code
curl -s localhost:9181/ledger/$GUID | grep '"state"'
