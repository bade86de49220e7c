package dev.idempotentrelay.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.ops.RelayMetrics;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;

/**
 * A purge's batches leave the ledger to the others while they write (the newest history row's id grows by more than
 * the batch's own rows), and take all of it while nobody else does; on SQLite, where a writer waiting for the ledger is
 * not seen, they leave it free a moment once a second while nobody else is seen.
 */
class PurgeRunTest {

    private final RelayMetrics metrics = new RelayMetrics();

    /** The exchange of a run started when the newest history row's id was 5000. */
    private static Exchange started(PurgeRun run) {
        Exchange exchange = new DefaultExchange(new DefaultCamelContext());
        exchange.setVariable("ledgerMark", 5000L);
        run.start(exchange);
        return exchange;
    }

    /**
     * On the run's clock: a batch of 100 rows that takes {@code batchMs}, after which the newest history row's id is mark,
     * then the pause the run asks for. Returns the pause in milliseconds.
     */
    private static long batchThenPause(PurgeRun run, Exchange exchange, AtomicLong now, long batchMs, long mark) {
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(batchMs));
        run.batch(batchOf(exchange, 100, mark));
        long pause = exchange.getVariable("batchPauseMs", Long.class);
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(pause));
        return pause;
    }

    /** A batch of rows, after which the newest history row's id is mark. */
    private static Exchange batchOf(Exchange exchange, int rows, long mark) {
        exchange.getMessage().setHeader("CamelSqlUpdateCount", rows);
        exchange.setVariable("ledgerMark", mark);
        return exchange;
    }

    @Test
    void whileChannelsSendEachBatchIsFollowedByAPauseThatKeepsItToItsShare() throws Exception {
        PurgeRun run = new PurgeRun(metrics, 0.25, 90, false);
        Exchange exchange = started(run);
        long t0 = System.nanoTime();
        Thread.sleep(40); // the batch's DELETE, as long as it took
        // its 100 deletions added 100 history rows, a channel's claim one more
        run.batch(batchOf(exchange, 100, 5101L));
        long took = (System.nanoTime() - t0) / 1_000_000;
        long pause = exchange.getVariable("batchPauseMs", Long.class);
        // a share of 1/4: three times as long again for the channels
        assertTrue(pause >= 3 * 40 && pause <= 3 * took + 3, "pause " + pause + " ms after a batch of " + took + " ms");
        assertEquals(100, exchange.getVariable("batchRows", Integer.class));
    }

    @Test
    void withNoChannelSendingThereIsNoPause() throws Exception {
        PurgeRun run = new PurgeRun(metrics, 0.25, 90, false);
        Exchange exchange = started(run);
        Thread.sleep(20);
        // the history rows of its own deletions alone
        run.batch(batchOf(exchange, 100, 5100L));
        assertEquals(0L, exchange.getVariable("batchPauseMs", Long.class));
        run.batch(batchOf(exchange, 7, 5107L));
        assertEquals(0L, exchange.getVariable("batchPauseMs", Long.class));
        run.finish(exchange);
        assertTrue(exchange.getMessage().getBody(String.class).startsWith("purge: 107 deleted in 2 batches, "),
                exchange.getMessage().getBody(String.class));
    }

    @Test
    void historyBatchesAddNoRowsOfTheirOwnSoAnyGrowthIsOthersWriting() throws Exception {
        PurgeRun run = new PurgeRun(metrics, 0.5, 90, false);
        Exchange exchange = started(run);
        run.historyBatch(batchOf(exchange, 2000, 5000L));
        assertEquals(0L, exchange.getVariable("batchPauseMs", Long.class));
        Thread.sleep(20);
        run.historyBatch(batchOf(exchange, 2000, 5001L));
        assertTrue(exchange.getVariable("batchPauseMs", Long.class) >= 20, "a pause as long as the batch at a share of 1/2");
    }

    @Test
    void aShareOutsideZeroToOneIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new PurgeRun(metrics, 0, 90, false));
        assertThrows(IllegalArgumentException.class, () -> new PurgeRun(metrics, 1.5, 90, false));
    }

    @Test
    void onSqliteWhileNobodyIsSeenTheLedgerIsLeftFreeAfterTheFirstBatchAndThenOnceASecond() {
        AtomicLong now = new AtomicLong(TimeUnit.HOURS.toNanos(1));
        PurgeRun run = new PurgeRun(metrics, 0.25, 90, true, now::get);
        Exchange exchange = started(run);
        long mark = 5000;
        long[] pauses = new long[40];
        for (int i = 0; i < pauses.length; i++) {
            mark += 100; // its own history rows alone
            pauses[i] = batchThenPause(run, exchange, now, 50, mark);
        }
        for (int i = 0; i < pauses.length; i++) {
            // the first batch, then the first batch a second or more after the end of that pause (50 ms batches)
            boolean listens = i == 0 || i == 20;
            assertEquals(listens ? PurgeRun.LISTEN_MS : 0, pauses[i], "after batch " + i);
        }
        run.finish(exchange);
        // none of it was a pause for a writer seen
        assertTrue(exchange.getMessage().getBody(String.class).contains(", 0.0 s of it paused for other writers; "),
                exchange.getMessage().getBody(String.class));
    }

    @Test
    void onSqliteAWriterSeenSetsThePaceAndTheLedgerIsStillLeftFreeLongEnoughOnceASecond() {
        AtomicLong now = new AtomicLong(TimeUnit.HOURS.toNanos(1));
        PurgeRun run = new PurgeRun(metrics, 0.5, 90, true, now::get);
        Exchange exchange = started(run);
        long mark = 5000;
        long listened = 0;
        for (int i = 0; i < 100; i++) {
            mark += 101; // and a claim of the relay beside it
            long pause = batchThenPause(run, exchange, now, 10, mark);
            assertTrue(pause == 10 || pause == PurgeRun.LISTEN_MS, "pause " + pause + " after batch " + i);
            listened += pause == PurgeRun.LISTEN_MS ? 1 : 0;
        }
        // 100 batches and their pauses: about 2 s plus the listening pauses, one at the start and one a second after
        assertTrue(listened >= 2 && listened <= 4, listened + " listening pauses");
    }
}
