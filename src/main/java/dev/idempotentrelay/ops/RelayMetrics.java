package dev.idempotentrelay.ops;

import dev.idempotentrelay.ledger.LedgerStates;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * The relay's metrics in a Micrometer Prometheus registry, served as Prometheus text by GET /metrics:
 * <ul>
 * <li>{@code relay_replies_total{code}}: replies sent to channels, by response code;</li>
 * <li>{@code relay_ledger_rows{state}}: ledger rows by state, counted when scraped;</li>
 * <li>{@code relay_state_transitions_total{from,to}}: ledger rows moved from one state to another
 * ({@code from="none"} is a new claim, {@code to="purged"} a deleted row);</li>
 * <li>{@code relay_core_call_seconds{call,outcome}}: time of the calls to the core, a histogram; call is
 * transfer (POST) or inquiry (GET), outcome answered, not-reached or no-answer;</li>
 * <li>{@code relay_job_runs_total{job}} and {@code relay_job_rows_total{job,outcome}}: resolve, reprocess and
 * purge runs and what they did with the rows they handled;</li>
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

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Map<String, AtomicLong> rowsByState = new ConcurrentHashMap<>();
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();

    public RelayMetrics() {
        for (String state : LedgerStates.ALL) {
            AtomicLong rows = new AtomicLong();
            rowsByState.put(state, rows);
            Gauge.builder("relay.ledger.rows", rows, AtomicLong::get)
                    .description("Ledger rows by state, counted when scraped").tag("state", state).register(registry);
        }
        for (String job : List.of("resolve", "reprocess", "purge")) {
            counter("relay.job.runs", "Runs of the timed routes and one-shot commands", "job", job);
        }
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

    public void jobRun(String job) {
        counter("relay.job.runs", "Runs of the timed routes and one-shot commands", "job", job).increment();
    }

    public void jobRows(String job, String outcome, long rows) {
        counter("relay.job.rows", "Rows a resolve, reprocess or purge run handled, by what it did", "job", job,
                "outcome", outcome).increment(rows);
    }

    /**
     * The Prometheus text of every metric, after setting the ledger's rows per state from {@code counts}, the
     * rows of sql/count-rows-by-state.sql (columns state and n); a state without rows is 0.
     */
    public String scrape(List<Map<String, Object>> counts) {
        for (String state : LedgerStates.ALL) {
            rowsByState.get(state).set(0);
        }
        if (counts != null) {
            for (Map<String, Object> count : counts) {
                AtomicLong rows = rowsByState.get(String.valueOf(count.get("state")));
                if (rows != null) {
                    rows.set(((Number) count.get("n")).longValue());
                }
            }
        }
        return registry.scrape();
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
