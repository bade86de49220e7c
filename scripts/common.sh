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
