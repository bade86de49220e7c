package dev.idempotentrelay.cli;

import dev.idempotentrelay.Relay;
import dev.idempotentrelay.wire.ChannelAllowList;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import org.apache.camel.util.ObjectHelper;

/** {@code run}: the relay, until SIGTERM or Ctrl-C stops it gracefully. Every flag overrides a property. */
final class RunCommand {

    /** flag name -> property in application.properties */
    static final Map<String, String> PROPERTY_OF = Map.ofEntries(
            Map.entry("db", "relay.db"),
            Map.entry("port", "relay.port"),
            Map.entry("core", "relay.core.url"),
            Map.entry("connect-timeout-ms", "relay.core.connect-timeout-ms"),
            Map.entry("read-timeout-ms", "relay.core.read-timeout-ms"),
            Map.entry("every", "relay.jobs.every"),
            Map.entry("purge-every", "relay.jobs.purge-every"),
            Map.entry("min-age", "relay.resolve.min-age"),
            Map.entry("sent-stale-after", "relay.resolve.sent-stale-after"),
            Map.entry("max-attempts", "relay.reprocess.max-attempts"),
            Map.entry("days", "relay.purge.days"),
            Map.entry("admin-port", "relay.admin.port"),
            Map.entry("admin-host", "relay.admin.host"),
            Map.entry("tls-keystore", "relay.tls.keystore"),
            Map.entry("tls-truststore", "relay.tls.truststore"),
            Map.entry("channel-allow", "relay.channel.allow"));

    /** The least value of each numeric flag, for run and for the one-shot commands that share its flags. */
    static final Map<String, Long> MINIMUM = Map.of(
            "port", 1L, "connect-timeout-ms", 1L, "read-timeout-ms", 1L, "every", 1L, "purge-every", 1L,
            "min-age", 0L, "sent-stale-after", 0L, "max-attempts", 1L, "days", 0L, "admin-port", 1L);

    private RunCommand() {
    }

    static int run(String[] args) throws UsageException {
        Map<String, String> properties = properties(args);
        Relay relay;
        try {
            relay = Relay.start(properties);
        } catch (Exception e) {
            throw new UsageException("run: " + startFailure(e));
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            relay.close();
            stopped.countDown();
        }, "relay-shutdown"));
        System.out.println("idempotent-relay: listening on port " + relay.context().resolvePropertyPlaceholders("{{relay.port}}")
                + ", ledger " + relay.context().resolvePropertyPlaceholders("{{relay.db}}")
                + ", core " + relay.context().resolvePropertyPlaceholders("{{relay.core.url}}")
                + ", admin http://" + relay.context().resolvePropertyPlaceholders("{{relay.admin.host}}:{{relay.admin.port}}"));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    /** The properties that the flags override. */
    static Map<String, String> properties(String[] args) throws UsageException {
        Set<String> switches = Set.of("no-jobs", "core-sim", "dump-routes");
        Set<String> valued = new java.util.HashSet<>(PROPERTY_OF.keySet());
        valued.add("routes");
        Flags flags = Flags.parse("run", args, 1, valued, switches);
        Map<String, String> properties = new LinkedHashMap<>();
        for (Map.Entry<String, String> flag : flags.all().entrySet()) {
            String name = flag.getKey();
            if (MINIMUM.containsKey(name)) {
                long n = flags.number("run", name, 0, MINIMUM.get(name));
                if ((name.equals("port") || name.equals("admin-port")) && n > 65535) {
                    throw new UsageException("run: --" + name + " must be at most 65535, not " + n);
                }
                properties.put(PROPERTY_OF.get(name), Long.toString(n));
            } else if (PROPERTY_OF.containsKey(name)) {
                properties.put(PROPERTY_OF.get(name), flag.getValue());
            }
        }
        if (flags.has("core")) {
            checkCoreUrl("run", flags.get("core", null));
        }
        if (flags.has("db") && flags.get("db", "").isBlank()) {
            throw new UsageException("run: --db needs a file name");
        }
        if (flags.has("admin-host") && flags.get("admin-host", "").isBlank()) {
            throw new UsageException("run: --admin-host needs an address, such as 127.0.0.1 or 0.0.0.0");
        }
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
            properties.put("camel.main.routes-include-pattern", routesPattern(flags.get("routes", null)));
        }
        if (flags.has("no-jobs")) {
            properties.put("relay.jobs.enabled", "false");
        }
        if (flags.has("core-sim")) {
            properties.put("relay.core-sim.enabled", "true");
        }
        if (flags.has("dump-routes")) {
            properties.put("camel.main.dump-routes", "yaml");
        }
        return properties;
    }

    static void checkCoreUrl(String command, String url) throws UsageException {
        try {
            URI uri = URI.create(url);
            if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
                throw new IllegalArgumentException();
            }
        } catch (IllegalArgumentException e) {
            throw new UsageException(command + ": --core must be a URL such as http://localhost:9201, not '" + url + "'");
        }
    }

    /** A folder of *.camel.yaml files, by its real path: a symbolic link as the folder loads no route. */
    private static String routesPattern(String dir) throws UsageException {
        Path folder;
        try {
            folder = Path.of(dir).toRealPath();
        } catch (IOException | RuntimeException e) {
            throw new UsageException("run: --routes " + dir + " is not a folder");
        }
        if (!Files.isDirectory(folder)) {
            throw new UsageException("run: --routes " + dir + " is not a folder");
        }
        try (Stream<Path> files = Files.list(folder)) {
            if (files.noneMatch(f -> f.getFileName().toString().endsWith(".camel.yaml"))) {
                throw new UsageException("run: --routes " + dir + " holds no *.camel.yaml route");
            }
        } catch (IOException e) {
            throw new UsageException("run: --routes " + dir + " cannot be read: " + e.getMessage());
        }
        return "file:" + folder + "/*.camel.yaml";
    }

    /** Why the relay did not start, in one line. */
    static String startFailure(Throwable e) {
        Relay.LedgerUnusableException unusable = ObjectHelper.getException(Relay.LedgerUnusableException.class, e);
        if (unusable != null) {
            return unusable.getMessage();
        }
        return "the relay did not start: " + Relay.rootMessage(e);
    }
}
