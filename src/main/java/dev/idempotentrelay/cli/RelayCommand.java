package dev.idempotentrelay.cli;

import java.util.Arrays;

/** Entry point of {@code idempotent-relay.jar}: dispatches to the command named first (SPEC section 7). */
public final class RelayCommand {

    static final String USAGE = String.join("\n",
            "usage: java -jar idempotent-relay.jar COMMAND [flags]",
            "  run        [--db PATH] [--port N] [--core URL] [--connect-timeout-ms N] [--read-timeout-ms N]",
            "             [--routes DIR] [--no-jobs] [--every S] [--purge-every S] [--min-age S]",
            "             [--sent-stale-after S] [--max-attempts N] [--days N] [--core-sim]",
            "             [--admin-port N] [--admin-host H] [--dump-routes]",
            "             [--tls-keystore PATH] [--tls-truststore PATH] [--channel-allow CIDR[,CIDR...]]",
            "             (passwords in RELAY_TLS_KEYSTORE_PASSWORD, RELAY_TLS_TRUSTSTORE_PASSWORD; admin token in RELAY_ADMIN_TOKEN)",
            "  resolve    --db PATH --core URL --min-age S [--sent-stale-after S]",
            "  reprocess  --db PATH --core URL --max-attempts N",
            "  purge      --db PATH --days N",
            "  core-sim   [--port N] [--slow-ms N]",
            "  send       [--host H] [--port N] --guid G --from A --to B --amount N [--memo M] [--channel C]",
            "             [--tls-truststore PATH] [--tls-keystore PATH]",
            "  ledger     show GUID [--db PATH] | list --state S [--limit N] [--db PATH] | stats [--db PATH]",
            "  bench      [--host H] [--port N] [--connections C] [--duration S] [--warmup W] [--resend-ratio R]",
            "             [--channel C] [--tls-truststore PATH] [--tls-keystore PATH] [--blocking] [--reconnect]");

    private RelayCommand() {
    }

    public static void main(String[] args) {
        System.exit(execute(args));
    }

    private static void quietLogs() {
        if (System.getProperty("relay.log.level") == null) {
            System.setProperty("relay.log.level", "warn");
        }
    }

    /** Runs a command and returns its exit code: 0 done, 1 failed, 2 bad arguments or unusable database. */
    public static int execute(String[] args) {
        if (args.length == 0 || Arrays.asList("-h", "--help", "help").contains(args[0])) {
            System.out.println(USAGE);
            return args.length == 0 ? 2 : 0;
        }
        try {
            switch (args[0]) {
                case "run":
                    return RunCommand.run(args);
                case "core-sim":
                    return CoreSimCommand.run(args);
                case "send":
                    return SendCommand.run(args);
                case "ledger":
                    return LedgerCommand.run(args);
                case "bench":
                    return BenchCommand.run(args);
                case "resolve":
                case "reprocess":
                case "purge":
                    // a one-shot command prints its summary line; the relay's INFO logs would bury it
                    quietLogs();
                    return JobCommand.run(args);
                default:
                    throw new UsageException("unknown command '" + args[0] + "' (run, resolve, reprocess, purge, core-sim, send, ledger, bench)");
            }
        } catch (UsageException e) {
            System.err.println("idempotent-relay: " + e.getMessage());
            return 2;
        }
    }
}
