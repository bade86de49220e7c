package dev.idempotentrelay.cli;

import java.util.List;
import java.util.Map;

/** Entry point of {@code idempotent-relay.jar}: dispatches to the command named first (SPEC section 7). */
public final class RelayCommand {

    static final List<String> COMMANDS = List.of("run", "resolve", "reprocess", "purge", "migrate", "core-sim", "send", "ledger", "bench", "routes");

    static final String USAGE = String.join("\n",
            "usage: java -jar idempotent-relay.jar COMMAND [flags]",
            "  run        [--config FILE] [--db PATH|URL] [--db-user U] [--port N] [--core URL] [--connect-timeout-ms N]",
            "             [--read-timeout-ms N] [--routes DIR] [--no-jobs] [--every S] [--purge-every S]",
            "             [--min-age S] [--sent-stale-after S] [--max-attempts N] [--days N] [--history-days N] [--core-sim]",
            "             [--admin-port N] [--admin-host H] [--dump-routes] [--jobs-clustered] [--allow-async-replication]",
            "             [--tls-keystore PATH] [--tls-truststore PATH] [--channel-allow CIDR[,CIDR...]] [--tracing]",
            "             (passwords in RELAY_TLS_KEYSTORE_PASSWORD, RELAY_TLS_TRUSTSTORE_PASSWORD; admin token in RELAY_ADMIN_TOKEN)",
            "  resolve    [--config FILE] --db PATH|URL [--db-user U] --core URL --min-age S [--sent-stale-after S]",
            "  reprocess  [--config FILE] --db PATH|URL [--db-user U] --core URL --max-attempts N",
            "  purge      [--config FILE] --db PATH|URL [--db-user U] --days N [--history-days N]",
            "  migrate    [--config FILE] --db PATH|URL [--db-user U]   the ledger brought to this build's version",
            "  core-sim   [--port N] [--slow-ms N]",
            "  send       [--host H] [--port N] --guid G --from A --to B --amount N [--memo M] [--channel C]",
            "             [--tls-truststore PATH] [--tls-keystore PATH]",
            "  ledger     show GUID | history GUID | list --state S [--limit N] | stats",
            "             each with [--db PATH|URL] [--db-user U] [--config FILE]",
            "  bench      [--host H] [--port N] [--connections C] [--duration S] [--warmup W] [--resend-ratio R]",
            "             [--channel C] [--tls-truststore PATH] [--tls-keystore PATH] [--blocking] [--reconnect]",
            "  routes     [--routes DIR] [--out DIR]   the route pictures (SVG) from the route files, without starting them",
            "A --config FILE is read over the built-in application.properties, RELAY_* variables (RELAY_PORT for",
            "relay.port) over it, the flags over everything. --db is a SQLite file or jdbc:postgresql://HOST[:PORT]/DB;",
            "the PostgreSQL password comes only from RELAY_DB_PASSWORD.");

    private RelayCommand() {
    }

    public static void main(String[] args) {
        System.exit(execute(args, System.getenv()));
    }

    private static void quietLogs() {
        if (System.getProperty("relay.log.level") == null) {
            System.setProperty("relay.log.level", "warn");
        }
    }

    /**
     * Runs a command with the given environment variables (the RELAY_* among them set properties) and returns its
     * exit code: 0 done, 1 failed, 2 bad arguments, an unusable setting, database or port.
     */
    public static int execute(String[] args, Map<String, String> environment) {
        if (args.length == 0) {
            ErrorLine.print("no command given");
            System.err.println(USAGE);
            return 2;
        }
        if (List.of("-h", "--help", "help").contains(args[0])) {
            System.out.println(USAGE);
            return 0;
        }
        try {
            switch (args[0]) {
                case "run":
                    return RunCommand.run(args, environment);
                case "core-sim":
                    return CoreSimCommand.run(args);
                case "send":
                    return SendCommand.run(args);
                case "ledger":
                    return LedgerCommand.run(args, environment);
                case "bench":
                    return BenchCommand.run(args);
                case "routes":
                    // its one line on stdout; Camel's INFO lines on loading the files would bury it
                    quietLogs();
                    return RoutesCommand.run(args);
                case "migrate":
                    // its lines on stdout, one per migration applied; Flyway's INFO logs would bury them
                    quietLogs();
                    return MigrateCommand.run(args, environment);
                case "resolve":
                case "reprocess":
                case "purge":
                    // a one-shot command prints its summary line; the relay's INFO logs would bury it
                    quietLogs();
                    return JobCommand.run(args, environment);
                default:
                    throw new UsageException(args[0] + ": unknown command (" + String.join(", ", COMMANDS) + ")");
            }
        } catch (UsageException e) {
            ErrorLine.print(e.getMessage());
            return 2;
        }
    }
}
