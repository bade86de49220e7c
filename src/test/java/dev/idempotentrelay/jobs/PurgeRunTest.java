package dev.idempotentrelay.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.ops.RelayMetrics;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;

/** A purge's batches leave the ledger to the channels while they send, and take all of it while none does. */
class PurgeRunTest {

    private final RelayMetrics metrics = new RelayMetrics();

    private static Exchange batchOf(Exchange exchange, int rows) {
        exchange.getMessage().setHeader("CamelSqlUpdateCount", rows);
        return exchange;
    }

    @Test
    void whileChannelsSendEachBatchIsFollowedByAPauseThatKeepsItToItsShare() throws Exception {
        PurgeRun run = new PurgeRun(metrics, 0.25, 90);
        Exchange exchange = new DefaultExchange(new DefaultCamelContext());
        run.start(exchange);
        long t0 = System.nanoTime();
        Thread.sleep(40); // the batch's DELETE, as long as it took
        metrics.reply("0000"); // a channel got a reply meanwhile
        run.batch(batchOf(exchange, 100));
        long took = (System.nanoTime() - t0) / 1_000_000;
        long pause = exchange.getVariable("batchPauseMs", Long.class);
        // a share of 1/4: three times as long again for the channels
        assertTrue(pause >= 3 * 40 && pause <= 3 * took + 3, "pause " + pause + " ms after a batch of " + took + " ms");
        assertEquals(100, exchange.getVariable("batchRows", Integer.class));
    }

    @Test
    void withNoChannelSendingThereIsNoPause() throws Exception {
        PurgeRun run = new PurgeRun(metrics, 0.25, 90);
        Exchange exchange = new DefaultExchange(new DefaultCamelContext());
        run.start(exchange);
        Thread.sleep(20);
        run.batch(batchOf(exchange, 100));
        assertEquals(0L, exchange.getVariable("batchPauseMs", Long.class));
        run.batch(batchOf(exchange, 7));
        run.finish(exchange);
        assertTrue(exchange.getMessage().getBody(String.class).startsWith("purge: 107 deleted in 2 batches, "),
                exchange.getMessage().getBody(String.class));
    }

    @Test
    void aShareOutsideZeroToOneIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new PurgeRun(metrics, 0, 90));
        assertThrows(IllegalArgumentException.class, () -> new PurgeRun(metrics, 1.5, 90));
    }
}
