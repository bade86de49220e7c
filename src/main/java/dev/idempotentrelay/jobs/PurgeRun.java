package dev.idempotentrelay.jobs;

import dev.idempotentrelay.ops.RelayMetrics;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.camel.Exchange;

/**
 * The progress of a purge run, which deletes due DONE rows batch after batch until a batch comes back short (SPEC
 * section 5): {@link #start} at its beginning, {@link #batch} after each batch's DELETE, {@link #finish} at its end, even
 * when a batch failed or a stop ended the run early (each batch is committed; the next run goes on). While it runs, and
 * after, {@code relay_purge_running}, {@code relay_purge_run_rows} (rows deleted so far in the current or last run) and
 * {@code relay_purge_run_seconds} (its duration so far, or in all) show it; each batch's rows are counted at once in
 * {@code relay_state_transitions_total{from="DONE",to="purged"}} and {@code relay_job_rows_total{job="purge",outcome="deleted"}}.
 * Then the history rows past relay.history.days go the same way ({@link #historyBatch}), counted in
 * {@code relay_job_rows_total{job="purge",outcome="history-deleted"}}. The summary line, the body at the end, says how
 * many DONE rows in how many batches and how long (and how much of it paused for other writers), and how many history rows: what the one-shot command prints and the
 * timed route logs.
 * <p>
 * While others write to the ledger, the batches take at most a share of the ledger's time ({@code relay.jobs.batch-share}, on
 * PostgreSQL {@code relay.jobs.postgresql.batch-share}):
 * after a batch that took T, variable {@code batchPauseMs} says to wait T (1 - share) / share before the next, so that
 * the channel path's writes have the ledger (on SQLite its one writer) for the rest. Others write when the newest
 * history row's id (variable {@code ledgerMark}, sql/latest-history-id.sql, read at the start and after each batch)
 * grew by more than the batch's own history rows (one per deleted DONE row, none for deleted history rows): every
 * claim and change of state adds one, whoever makes it, so this sees this relay's channels, another relay's on the
 * same ledger, and the running relay beside a one-shot purge command. While nobody else writes, there is no pause,
 * and the purge runs as fast as the ledger deletes.
 * <p>
 * On SQLite a writer of another process (the relay beside a one-shot purge command) that finds the ledger locked by a
 * batch is not seen until it has written: it sleeps and tries again, up to {@value #SQLITE_BUSY_SLEEP_MS} ms later
 * (SQLite's busy handler), and back-to-back batches can keep it out for the whole run, its claims waiting. So on SQLite,
 * while the purge sees no other writer, it leaves the ledger free for {@link #LISTEN_MS} after its first batch and then
 * once a second, longer than such a writer's sleep: a writer that waits gets in, is seen, and the pace above follows.
 * These pauses are not counted as paused for other writers.
 */
public class PurgeRun {

    // One run at a time (the timer's route is stateful; the one-shot command runs once in its own process): the run's
    // counts and pace are kept here, not in the exchange

    /** The longest sleep of SQLite's busy handler between two tries of a writer that finds the ledger locked. */
    static final long SQLITE_BUSY_SLEEP_MS = 100;
    /** How long the ledger is left free for a waiting writer that cannot be seen: over SQLite's longest sleep. */
    static final long LISTEN_MS = SQLITE_BUSY_SLEEP_MS + 20;
    private static final long LISTEN_NANOS = TimeUnit.MILLISECONDS.toNanos(LISTEN_MS);
    private static final long LISTEN_EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final RelayMetrics metrics;
    private final double share;
    private final int historyDays;
    private final boolean listens;
    private final LongSupplier clock;
    private long listenedNanos;
    private volatile boolean running;
    private long batchStartedNanos;
    private long markBefore;
    private volatile long rows;
    private int batches;
    private long historyRows;
    private long pausedNanos;
    private volatile long startedNanos;
    private volatile long endedNanos;

    /**
     * @param share the most of the ledger's time the batches take while channels send, above 0 and at most 1
     * @param historyDays the days a history row is kept (relay.history.days), for the summary line
     * @param listens whether a writer that waits for the ledger goes unseen (SQLite): the ledger is then left free for
     *        {@link #LISTEN_MS} once a second while no other writer is seen
     */
    public PurgeRun(RelayMetrics metrics, double share, int historyDays, boolean listens) {
        this(metrics, share, historyDays, listens, System::nanoTime);
    }

    PurgeRun(RelayMetrics metrics, double share, int historyDays, boolean listens, LongSupplier clock) {
        if (!(share > 0 && share <= 1)) {
            throw new IllegalArgumentException("the share of the timed work's batches must be above 0 and at most 1, not " + share);
        }
        this.metrics = metrics;
        this.share = share;
        this.historyDays = historyDays;
        this.listens = listens;
        this.clock = clock;
        metrics.gauge("relay.purge.running", "1 while a purge run deletes due DONE rows, batch after batch", () -> running ? 1 : 0);
        metrics.gauge("relay.purge.run.rows", "Rows deleted so far in the current purge run, or in all in the last one", () -> rows);
        metrics.gauge("relay.purge.run.seconds", "Duration of the current purge run so far, or of the last one", this::seconds);
    }

    public void start(Exchange exchange) {
        rows = 0;
        batches = 0;
        historyRows = 0;
        pausedNanos = 0;
        startedNanos = clock.getAsLong();
        running = true;
        batchStartedNanos = startedNanos;
        // the first batch is followed by a listening pause
        listenedNanos = startedNanos - LISTEN_EVERY_NANOS;
        markBefore = mark(exchange);
    }

    /**
     * After a batch of DONE rows: counted, and the pause before the next. The batch is the rows its mark chose (variable
     * {@code rowsMarked}, SQLite), or else the rows its DELETE deleted (PostgreSQL).
     */
    public void batch(Exchange exchange) {
        Integer marked = exchange.getVariable("rowsMarked", Integer.class);
        int batch = marked != null ? marked : RowBatch.rows(exchange);
        batches++;
        rows += batch;
        if (batch > 0) {
            metrics.transition("DONE", "purged", batch);
            metrics.jobRows("purge", "deleted", batch);
        }
        pace(exchange, batch, batch);
    }

    /** After a batch of history rows past relay.history.days: counted, and the pause before the next. */
    public void historyBatch(Exchange exchange) {
        int batch = RowBatch.rows(exchange);
        historyRows += batch;
        if (batch > 0) {
            metrics.jobRows("purge", "history-deleted", batch);
        }
        pace(exchange, batch, 0);
    }

    /**
     * Variable batchRows for the loop, and batchPauseMs: the ledger left to the others while they write.
     *
     * @param ownHistoryRows the history rows the batch itself added
     */
    private void pace(Exchange exchange, int batch, int ownHistoryRows) {
        exchange.setVariable("batchRows", batch);
        long now = clock.getAsLong();
        long mark = mark(exchange);
        boolean othersWrote = mark - markBefore > ownHistoryRows;
        long pauseNanos = othersWrote ? (long) ((now - batchStartedNanos) * (1 - share) / share) : 0;
        if (othersWrote) {
            pausedNanos += pauseNanos;
        }
        if (listens && pauseNanos < LISTEN_NANOS && now - listenedNanos >= LISTEN_EVERY_NANOS) {
            pauseNanos = LISTEN_NANOS;
        }
        if (pauseNanos >= LISTEN_NANOS) {
            listenedNanos = now + pauseNanos;
        }
        exchange.setVariable("batchPauseMs", pauseNanos / 1_000_000);
        batchStartedNanos = now + pauseNanos;
        markBefore = mark;
    }

    private static long mark(Exchange exchange) {
        return exchange.getVariable("ledgerMark", 0L, Long.class);
    }

    /** The run's end: its summary line as the body, variable {@code rowsHandled}, and the run counted. */
    public void finish(Exchange exchange) {
        if (!running) {
            return;
        }
        endedNanos = clock.getAsLong();
        running = false;
        long deleted = rows;
        metrics.jobRun("purge");
        exchange.setVariable("rowsHandled", deleted);
        exchange.getMessage().setBody(String.format(Locale.ROOT,
                "purge: %d deleted in %d %s, %.1f s, %.1f s of it paused for other writers; %d history rows past %d days",
                deleted, batches, batches == 1 ? "batch" : "batches", seconds(), pausedNanos / 1e9, historyRows,
                historyDays));
    }

    private double seconds() {
        long started = startedNanos;
        if (started == 0) {
            return 0;
        }
        return ((running ? clock.getAsLong() : endedNanos) - started) / 1e9;
    }
}
