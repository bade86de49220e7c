package dev.idempotentrelay.cli;

import dev.idempotentrelay.Relay;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.camel.util.ObjectHelper;

/**
 * The one-shot commands {@code resolve}, {@code reprocess} and {@code purge}: the relay's own routes
 * (direct:run-resolve, direct:run-reprocess, direct:run-purge) run once, without the channel listener
 * or the timers, against a ledger that a running relay may be using at the same moment.
 */
final class JobCommand {

    /** One command: its required and optional flags, and the route it runs once. */
    private record Job(String name, List<String> required, List<String> optional, String route) {
    }

    private static final Map<String, Job> JOBS = Map.of(
            "resolve", new Job("resolve", List.of("db", "core", "min-age"), List.of("sent-stale-after"), "direct:run-resolve"),
            "reprocess", new Job("reprocess", List.of("db", "core", "max-attempts"), List.of(), "direct:run-reprocess"),
            "purge", new Job("purge", List.of("db", "days"), List.of(), "direct:run-purge"));

    private JobCommand() {
    }

    static boolean isJob(String command) {
        return JOBS.containsKey(command);
    }

    static int run(String[] args) throws UsageException {
        Job job = JOBS.get(args[0]);
        Map<String, String> properties = properties(job, args);
        Relay relay;
        try {
            relay = Relay.start(properties);
        } catch (Exception e) {
            throw new UsageException(job.name() + ": " + RunCommand.startFailure(e));
        }
        try (relay) {
            String summary = relay.context().createProducerTemplate().requestBody(job.route(), null, String.class);
            System.out.println(summary);
            return 0;
        } catch (Exception e) {
            System.err.println("idempotent-relay: " + job.name() + ": the run failed: " + Relay.rootMessage(e));
            return ObjectHelper.getException(SQLException.class, e) != null ? 2 : 1;
        }
    }

    static Map<String, String> properties(Job job, String[] args) throws UsageException {
        Set<String> accepted = new java.util.HashSet<>(job.required());
        accepted.addAll(job.optional());
        Flags flags = Flags.parse(job.name(), args, 1, accepted, Set.of());
        for (String name : job.required()) {
            flags.required(job.name(), name);
        }
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("relay.channel.enabled", "false");
        properties.put("relay.jobs.enabled", "false");
        // a one-shot run serves no admin endpoint: the admin port belongs to the running relay
        properties.put("relay.admin.enabled", "false");
        for (Map.Entry<String, String> flag : flags.all().entrySet()) {
            String name = flag.getKey();
            String value = flag.getValue();
            if (RunCommand.MINIMUM.containsKey(name)) {
                value = Long.toString(flags.number(job.name(), name, 0, RunCommand.MINIMUM.get(name)));
            }
            properties.put(RunCommand.PROPERTY_OF.get(name), value);
        }
        if (flags.has("core")) {
            RunCommand.checkCoreUrl(job.name(), flags.get("core", null));
        }
        LedgerCommand.db(job.name(), flags);
        return properties;
    }
}
