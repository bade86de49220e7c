package dev.idempotentrelay.cli;

import dev.idempotentrelay.Relay;
import dev.idempotentrelay.ledger.LedgerDialect;
import dev.idempotentrelay.ledger.ReplicationCheck;
import dev.idempotentrelay.ops.BatchedConsoleAppender;
import dev.idempotentrelay.wire.ChannelAllowList;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import org.apache.camel.util.ObjectHelper;

/**
 * {@code run}: the relay, until SIGTERM or Ctrl-C stops it gracefully. Its properties are application.properties,
 * under the --config file, under the RELAY_* variables, under the flags ({@link Settings}); all are checked before
 * the relay starts.
 */
final class RunCommand {

    private static final Set<String> SWITCHES = Set.of("no-jobs", "jobs-clustered", "core-sim", "dump-routes",
            "allow-async-replication", "tracing");

    private RunCommand() {
    }

    static int run(String[] args, Map<String, String> environment) throws UsageException {
        Settings settings = settings(args, environment);
        List<ListenerPorts.Listener> listeners = ListenerPorts.of(settings);
        ListenerPorts.refuseTaken("run", listeners);
        TimingRules.warnIfMinAgeUnderReadTimeout(settings);
        Relay relay;
        try {
            relay = Relay.start(settings.overrides());
        } catch (Exception e) {
            throw new UsageException("run: " + startFailure(e, listeners));
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            relay.close();
            stopped.countDown();
        }, "relay-shutdown"));
        // after the log lines of the start, which wait in the log's buffer
        BatchedConsoleAppender.flushAll();
        System.out.println("idempotent-relay: listening on port " + relay.context().resolvePropertyPlaceholders("{{relay.port}}")
                + ", ledger " + LedgerDialect.describe(relay.context().resolvePropertyPlaceholders("{{relay.db}}"))
                + ", core " + relay.context().resolvePropertyPlaceholders("{{relay.core.url}}")
                + ", admin http://" + relay.context().resolvePropertyPlaceholders("{{relay.admin.host}}:{{relay.admin.port}}"));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    /** The properties that run starts the relay with over application.properties (no environment variables). */
    static Map<String, String> properties(String[] args) throws UsageException {
        return settings(args, Map.of()).overrides();
    }

    /** The flags, the --config file and the environment, checked: every property's rule and the timing rules. */
    static Settings settings(String[] args, Map<String, String> environment) throws UsageException {
        Set<String> valued = new HashSet<>(Set.of("routes", "config"));
        Arrays.stream(RelayProperty.values()).filter(p -> p.flag != null).forEach(p -> valued.add(p.flag));
        Flags flags = Flags.parse("run", args, 1, valued, SWITCHES);
        Settings settings = Settings.load("run", flags, environment);
        for (Map.Entry<String, String> flag : flags.all().entrySet()) {
            RelayProperty.ofFlag(flag.getKey()).ifPresent(p -> settings.flag(p.flag, p.key, flag.getValue()));
        }
        // an empty --tls-* flag is a mistake (an unset variable, say), never a wish for plain TCP
        for (String file : new String[] {"tls-keystore", "tls-truststore"}) {
            if (flags.has(file) && flags.get(file, "").isBlank()) {
                throw new UsageException("run: --" + file + " needs a PKCS12 file");
            }
        }
        if (flags.has("channel-allow")) {
            try {
                ChannelAllowList.of(flags.get("channel-allow", ""));
            } catch (IllegalArgumentException e) {
                throw new UsageException("run: " + e.getMessage());
            }
        }
        if (flags.has("routes")) {
            settings.flag("routes", "camel.main.routes-include-pattern", routesPattern("run", flags.get("routes", null)));
        }
        if (flags.has("no-jobs")) {
            settings.flag("no-jobs", RelayProperty.JOBS_ENABLED.key, "false");
        }
        if (flags.has("jobs-clustered")) {
            settings.flag("jobs-clustered", RelayProperty.JOBS_CLUSTERED.key, "true");
        }
        if (flags.has("allow-async-replication")) {
            settings.flag("allow-async-replication", RelayProperty.DB_ALLOW_ASYNC_REPLICATION.key, "true");
        }
        if (flags.has("core-sim")) {
            settings.flag("core-sim", RelayProperty.CORE_SIM_ENABLED.key, "true");
        }
        if (flags.has("tracing")) {
            settings.flag("tracing", RelayProperty.TRACING_ENABLED.key, "true");
        }
        if (flags.has("dump-routes")) {
            settings.flag("dump-routes", "camel.main.dump-routes", "yaml");
        }
        settings.check("run", List.of(RelayProperty.values()));
        TimingRules.refuseStaleBeforeReadTimeout("run", settings);
        TimingRules.refuseHistoryShorterThanDays("run", settings);
        ClusteredJobsRule.refuseOnSqlite("run", settings);
        return settings;
    }

    /** A folder of *.camel.yaml files, by its real path: a symbolic link as the folder loads no route. */
    static String routesPattern(String command, String dir) throws UsageException {
        Path folder;
        try {
            folder = Path.of(dir).toRealPath();
        } catch (IOException | RuntimeException e) {
            throw new UsageException(command + ": --routes " + dir + " is not a folder");
        }
        if (!Files.isDirectory(folder)) {
            throw new UsageException(command + ": --routes " + dir + " is not a folder");
        }
        try (Stream<Path> files = Files.list(folder)) {
            if (files.noneMatch(f -> f.getFileName().toString().endsWith(".camel.yaml"))) {
                throw new UsageException(command + ": --routes " + dir + " holds no *.camel.yaml route");
            }
        } catch (IOException e) {
            throw new UsageException(command + ": --routes " + dir + " cannot be read: " + e.getMessage());
        }
        return "file:" + folder + "/*.camel.yaml";
    }

    /**
     * Why the relay did not start, in one line: the ledger, its replication, a port taken meanwhile, or the deepest
     * cause.
     */
    static String startFailure(Throwable e, List<ListenerPorts.Listener> listeners) {
        Relay.LedgerUnusableException unusable = ObjectHelper.getException(Relay.LedgerUnusableException.class, e);
        if (unusable != null) {
            return unusable.getMessage();
        }
        ReplicationCheck.UnsafeReplicationException unsafe = ObjectHelper.getException(ReplicationCheck.UnsafeReplicationException.class, e);
        if (unsafe != null) {
            return unsafe.getMessage();
        }
        String taken = ListenerPorts.takenAfter(e, listeners);
        if (taken != null) {
            return taken;
        }
        return "the relay did not start: " + Relay.rootMessage(e);
    }
}
