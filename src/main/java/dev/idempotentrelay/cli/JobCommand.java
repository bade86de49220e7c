package dev.idempotentrelay.cli;

import static dev.idempotentrelay.cli.RelayProperty.ADMIN_ENABLED;
import static dev.idempotentrelay.cli.RelayProperty.CHANNEL_ENABLED;
import static dev.idempotentrelay.cli.RelayProperty.CORE_SIM_ENABLED;
import static dev.idempotentrelay.cli.RelayProperty.CORE_URL;
import static dev.idempotentrelay.cli.RelayProperty.DAYS;
import static dev.idempotentrelay.cli.RelayProperty.DB;
import static dev.idempotentrelay.cli.RelayProperty.DB_ALLOW_ASYNC_REPLICATION;
import static dev.idempotentrelay.cli.RelayProperty.DB_USER;
import static dev.idempotentrelay.cli.RelayProperty.HISTORY_DAYS;
import static dev.idempotentrelay.cli.RelayProperty.JOBS_ENABLED;
import static dev.idempotentrelay.cli.RelayProperty.MAX_ATTEMPTS;
import static dev.idempotentrelay.cli.RelayProperty.MIN_AGE;
import static dev.idempotentrelay.cli.RelayProperty.NAME;
import static dev.idempotentrelay.cli.RelayProperty.SENT_STALE_AFTER;

import dev.idempotentrelay.Relay;
import dev.idempotentrelay.ledger.RelayName;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.camel.util.IOHelper;
import org.apache.camel.util.ObjectHelper;

/**
 * The one-shot commands {@code resolve}, {@code reprocess} and {@code purge}: the relay's own routes
 * (direct:run-resolve, direct:run-reprocess, direct:run-purge) run once, without the channel listener
 * or the timers, against a ledger that a running relay may be using at the same moment. Their settings come as
 * {@code run}'s do: flags over RELAY_* variables over a --config file over application.properties.
 */
final class JobCommand {

    /**
     * One command: the properties it needs given (by a flag, a variable or --config), its optional flags, its route,
     * and whether it sends transfers to the core (POST): only such a command is refused on a PostgreSQL ledger whose
     * asynchronous replication can lose an acknowledged claim (ReplicationCheck); the others say so and run.
     */
    private record Job(String name, List<RelayProperty> required, List<RelayProperty> optional, String route, boolean sends) {
    }

    private static final Map<String, Job> JOBS = Map.of(
            "resolve", new Job("resolve", List.of(DB, CORE_URL, MIN_AGE), List.of(SENT_STALE_AFTER, DB_USER), "direct:run-resolve", false),
            "reprocess", new Job("reprocess", List.of(DB, CORE_URL, MAX_ATTEMPTS), List.of(DB_USER), "direct:run-reprocess", true),
            "purge", new Job("purge", List.of(DB, DAYS), List.of(HISTORY_DAYS, DB_USER), "direct:run-purge", false));

    private JobCommand() {
    }

    static int run(String[] args, Map<String, String> environment) throws UsageException {
        Job job = JOBS.get(args[0]);
        Settings settings = settings(job, args, environment);
        Relay relay;
        try {
            relay = Relay.start(settings.overrides());
        } catch (Exception e) {
            throw new UsageException(job.name() + ": " + RunCommand.startFailure(e, List.of()));
        }
        // a stop (SIGTERM from an operator, systemd or cron's timeout) ends the run as it ends the relay's: Camel's
        // graceful shutdown, after which the purge's loop stops after the batch in hand (each batch committed) and the
        // run's summary is printed before the process exits. Without it nothing stopped the route until Camel Main's
        // hangup wait forced it 60 s later, and the summary was never printed.
        CountDownLatch ended = new CountDownLatch(1);
        Thread stopOnSignal = new Thread(() -> {
            relay.close();
            try {
                ended.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "one-shot-stop");
        try {
            Runtime.getRuntime().addShutdownHook(stopOnSignal);
        } catch (IllegalStateException stopping) {
            // the signal came while the relay started
            relay.close();
            ErrorLine.print(job.name() + ": stopped before the run began");
            return 1;
        }
        try (relay) {
            String summary = relay.context().createProducerTemplate().requestBody(job.route(), null, String.class);
            System.out.println(summary);
            return 0;
        } catch (Exception e) {
            ErrorLine.print(job.name() + ": the run failed: " + Relay.rootMessage(e));
            return ObjectHelper.getException(SQLException.class, e) != null ? 2 : 1;
        } finally {
            ended.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(stopOnSignal);
            } catch (IllegalStateException e) {
                // the stop is under way: the hook ends once this run has printed its line
            }
        }
    }

    private static Settings settings(Job job, String[] args, Map<String, String> environment) throws UsageException {
        Set<String> accepted = new HashSet<>(Set.of("config"));
        job.required().forEach(p -> accepted.add(p.flag));
        job.optional().forEach(p -> accepted.add(p.flag));
        Flags flags = Flags.parse(job.name(), args, 1, accepted, Set.of());
        Settings settings = Settings.load(job.name(), flags, environment);
        for (Map.Entry<String, String> flag : flags.all().entrySet()) {
            RelayProperty.ofFlag(flag.getKey()).ifPresent(p -> settings.flag(p.flag, p.key, flag.getValue()));
        }
        for (RelayProperty property : job.required()) {
            if (!settings.given(property)) {
                throw new UsageException(job.name() + ": --" + property.flag + " is required (or " + property.key
                        + " in --config FILE, or " + IOHelper.normalizeEnvironmentVariable(property.key) + ")");
            }
        }
        // a one-shot run serves no channel and no admin endpoint (their ports belong to the running relay), runs no
        // timers and talks to the running core, never to a simulator of its own
        settings.fix(CHANNEL_ENABLED.key, "false", job.name());
        settings.fix(JOBS_ENABLED.key, "false", job.name());
        settings.fix(ADMIN_ENABLED.key, "false", job.name());
        settings.fix(CORE_SIM_ENABLED.key, "false", job.name());
        // its changes in the GUIDs' history name the host and the command, unless relay.name names it
        if (!settings.given(NAME)) {
            settings.fix(NAME.key, RelayName.of("", job.name()), job.name());
        }
        if (!job.sends()) {
            settings.fix(DB_ALLOW_ASYNC_REPLICATION.key, "true", job.name());
        }
        settings.check(job.name(), List.of(RelayProperty.values()));
        if (job.name().equals("purge")) {
            TimingRules.refuseHistoryShorterThanDays(job.name(), settings);
        }
        LedgerCommand.existingLedger(job.name(), settings);
        return settings;
    }
}
