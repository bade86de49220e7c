package dev.idempotentrelay.ops;

import dev.idempotentrelay.ledger.LedgerStates;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.camel.Exchange;
import java.util.function.BooleanSupplier;

/**
 * The relay's metrics in a Micrometer Prometheus registry, served as Prometheus text by GET /metrics:
 * <ul>
 * <li>{@code relay_replies_total{code}}: replies sent to channels, by response code;</li>
 * <li>{@code relay_ledger_rows{state}} and {@code relay_ledger_oldest_age_seconds{state}}: the undecided rows (RECEIVED,
 * SENT, UNKNOWN, FAILED) by state and the age of the oldest of each on the database's clock (0 when there is none),
 * counted when scraped from the (state, updated_at) index: a scrape costs as much on millions of DONE rows as on none,
 * and DONE is not counted;</li>
 * <li>{@code relay_ledger_failed_at_cap_rows}: FAILED rows at the attempts cap, which wait for a person;</li>
 * <li>{@code relay_ledger_bytes}: the ledger's size on disk, as the database reports it;</li>
 * <li>{@code relay_ledger_group_size}: the writes committed together by the group-commit writer (SQLite, PostgreSQL), a
 * histogram of one sample per commit: its sum over its count is the mean group;</li>
 * <li>{@code relay_setting{name}}: the timing settings the relay runs with (seconds, or a count), so that alert rules
 * compare ages with them whatever the configuration;</li>
 * <li>{@code relay_state_transitions_total{from,to}}: ledger rows moved from one state to another
 * ({@code from="none"} is a new claim, {@code to="purged"} a deleted row);</li>
 * <li>{@code relay_core_call_seconds{call,outcome}}: time of the calls to the core, a histogram; call is
 * transfer (POST) or inquiry (GET), outcome answered, not-reached or no-answer;</li>
 * <li>{@code relay_job_runs_total{job}} and {@code relay_job_rows_total{job,outcome}}: resolve, reprocess and
 * purge runs and what they did with the rows they handled;</li>
 * <li>gauges that other beans register ({@link #gauge}), such as a purge run's progress.</li>
 * <li>{@code relay_ledger_writable}: 1 while the last probe commit of the ledger completed in time, else 0
 * ({@link LedgerCommitCheck}, as /health's ledger);</li>
 * <li>{@code relay_ledger_unsafe_replication}: 1 while the last check of a PostgreSQL ledger found asynchronous
 * standbys and no synchronous one, else 0 ({@code ReplicationCheck}).</li>
 * </ul>
 * Recording is a counter increment or a timer sample, looked up once per tag combination.
 */
public class RelayMetrics {

    private static final Duration[] CORE_CALL_BUCKETS = {
        Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50),
        Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
        Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30)};

    /** How updated_at and the database's clock are written (UTC text, SQLite's datetime('now') format). */
    private static final DateTimeFormatter LEDGER_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Map<String, AtomicLong> rowsByState = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> oldestAgeByState = new ConcurrentHashMap<>();
    private final AtomicLong failedAtCap = new AtomicLong();
    private final AtomicLong ledgerBytes = new AtomicLong();
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();
    private final DistributionSummary ledgerGroups = DistributionSummary.builder("relay.ledger.group.size")
            .description("Ledger writes committed together in one transaction by the group-commit writer, one sample per commit")
            .serviceLevelObjectives(1, 2, 4, 8, 16, 32, 64, 128, 256, 512).register(registry);

    public RelayMetrics() {
        for (String state : LedgerStates.UNDECIDED) {
            AtomicLong rows = new AtomicLong();
            rowsByState.put(state, rows);
            Gauge.builder("relay.ledger.rows", rows, AtomicLong::get)
                    .description("Undecided ledger rows by state, counted when scraped").tag("state", state).register(registry);
            AtomicLong age = new AtomicLong();
            oldestAgeByState.put(state, age);
            Gauge.builder("relay.ledger.oldest.age.seconds", age, AtomicLong::get)
                    .description("Age of the oldest row in each undecided state on the database's clock, 0 when there is none")
                    .tag("state", state).register(registry);
        }
        Gauge.builder("relay.ledger.failed.at.cap.rows", failedAtCap, AtomicLong::get)
                .description("FAILED rows whose attempts reached relay.reprocess.max-attempts: never sent again, they wait for a person")
                .register(registry);
        Gauge.builder("relay.ledger.bytes", ledgerBytes, AtomicLong::get)
                .description("The ledger's size on disk, as the database reports it").register(registry);
        for (String job : List.of("resolve", "reprocess", "purge")) {
            counter("relay.job.runs", "Runs of the timed routes and one-shot commands", "job", job);
        }
    }

    /** A gauge read at each scrape, registered once (by the bean that owns its value). */
    public void gauge(String name, String description, Supplier<Number> value) {
        Gauge.builder(name, value).description(description).register(registry);
    }

    /**
     * A count kept by another bean, read from it at each scrape (a Prometheus counter, {@code name_total}). Micrometer
     * holds the bean weakly: its owner must keep it.
     */
    public <T> void counter(String name, String description, T owner, java.util.function.ToDoubleFunction<T> count, String... tags) {
        FunctionCounter.builder(name, owner, count).description(description).tags(tags).register(registry);
    }

    /** The timing settings, in /metrics for alert rules that compare ages with them: by name, the property of each. */
    private static final java.util.Map<String, String> SETTINGS = java.util.Map.of("min-age", "relay.resolve.min-age",
            "sent-stale-after", "relay.resolve.sent-stale-after", "every", "relay.jobs.every", "purge-every", "relay.jobs.purge-every",
            "days", "relay.purge.days", "max-attempts", "relay.reprocess.max-attempts");

    /** The timing settings the relay runs with, from its properties, each as {@code relay_setting{name}}. */
    public void settings(org.apache.camel.CamelContext context) {
        SETTINGS.forEach((name, key) -> setting(name, Long.parseLong(context.resolvePropertyPlaceholders("{{" + key + "}}"))));
        setting("read-timeout", Long.parseLong(context.resolvePropertyPlaceholders("{{relay.core.read-timeout-ms}}")) / 1000.0);
    }

    /** A setting the relay runs with, as {@code relay_setting{name}}: seconds, or a count. */
    public void setting(String name, double value) {
        Gauge.builder("relay.setting", () -> value).description("The timing settings the relay runs with: seconds, or a count")
                .tag("name", name).register(registry);
    }

    public void reply(String code) {
        counter("relay.replies", "Replies sent to channels, by response code", "code", code).increment();
    }

    public void transition(String from, String to, long rows) {
        counter("relay.state.transitions", "Ledger rows moved from one state to another", "from", from, "to", to)
                .increment(rows);
    }

    public void coreCall(String call, String outcome, long millis) {
        String key = call + '|' + outcome;
        Timer timer = timers.computeIfAbsent(key, k -> Timer.builder("relay.core.call")
                .description("Calls to the core: transfer (POST) or inquiry (GET), and whether it answered")
                .tags("call", call, "outcome", outcome)
                .serviceLevelObjectives(CORE_CALL_BUCKETS)
                .register(registry));
        timer.record(millis, TimeUnit.MILLISECONDS);
    }

    /** A commit of the group-commit writer, and how many writes it held. */
    public void ledgerGroup(int writes) {
        ledgerGroups.record(writes);
    }

    public void jobRun(String job) {
        counter("relay.job.runs", "Runs of the timed routes and one-shot commands", "job", job).increment();
    }

    public void jobRows(String job, String outcome, long rows) {
        counter("relay.job.rows", "Rows a resolve, reprocess or purge run handled, by what it did", "job", job,
                "outcome", outcome).increment(rows);
    }

    /**
     * The Prometheus text of every metric, after setting the ledger's gauges from what the scrape read (GET /metrics):
     * variable {@code undecidedRows}, the rows of sql/count-undecided-rows.sql (state, n, oldest, now); variable
     * {@code failedAtCap} (sql/count-failed-at-cap.sql) and variable {@code ledgerBytes} (sql/ledger-size.sql). A state
     * without rows is 0, and so is its age.
     */
    public String scrape(Exchange exchange) {
        for (String state : LedgerStates.UNDECIDED) {
            rowsByState.get(state).set(0);
            oldestAgeByState.get(state).set(0);
        }
        List<?> counts = exchange.getVariable("undecidedRows", List.class);
        if (counts != null) {
            for (Object row : counts) {
                Map<?, ?> count = (Map<?, ?>) row;
                String state = String.valueOf(count.get("state"));
                if (rowsByState.containsKey(state)) {
                    rowsByState.get(state).set(((Number) count.get("n")).longValue());
                    oldestAgeByState.get(state).set(secondsBetween(count.get("oldest"), count.get("now")));
                }
            }
        }
        failedAtCap.set(number(exchange.getVariable("failedAtCap")));
        ledgerBytes.set(number(exchange.getVariable("ledgerBytes")));
        return registry.scrape();
    }

    /** Seconds from one ledger time to a later one, both UTC text as the ledger writes them; 0 when either is missing. */
    static long secondsBetween(Object earlier, Object later) {
        if (earlier == null || later == null) {
            return 0;
        }
        return Math.max(0, Duration.between(LocalDateTime.parse(earlier.toString(), LEDGER_TIME),
                LocalDateTime.parse(later.toString(), LEDGER_TIME)).getSeconds());
    }

    private static long number(Object value) {
        return value instanceof Number n ? n.longValue() : 0;
    }

    /** A gauge of 1 or 0, read at every scrape: whether something holds now (relay.ledger.writable is relay_ledger_writable). */
    public void flag(String name, String description, BooleanSupplier holds) {
        // held strongly: Micrometer keeps only a weak reference to a gauge's object, and a lambda has no other holder
        Gauge.builder(name, holds, h -> h.getAsBoolean() ? 1 : 0).description(description).strongReference(true).register(registry);
    }

    private Counter counter(String name, String description, String... tags) {
        String key = name + '|' + String.join("|", tags);
        Counter counter = counters.get(key);
        if (counter == null) {
            counter = counters.computeIfAbsent(key,
                    k -> Counter.builder(name).description(description).tags(tags).register(registry));
        }
        return counter;
    }
}
