package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.support.Await;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.LedgerFile;
import dev.idempotentrelay.support.OneShot;
import dev.idempotentrelay.support.Postgres;
import dev.idempotentrelay.support.RelayUnderTest;
import dev.idempotentrelay.telegram.Telegram;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.camel.ProducerTemplate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SPEC section 5: the purge deletes due DONE rows in bounded batches, each its own short transaction, on both ledgers
 * (a real SQLite file through the group-commit writer, a real PostgreSQL server): a transfer sent while a purge runs is
 * answered before the purge ends, a purge that a stop ends leaves its batches committed and the next run goes on,
 * whatever the batch size only DONE rows older than the purge age are deleted, and the one-shot purge command beside a
 * running relay pauses between its batches while the relay's channels send (and not while nobody else writes).
 */
class BatchedPurgeTest {

    private static final long DAY = 24 * 3_600;

    @TempDir
    Path dir;

    private CoreSimulator core;

    @BeforeEach
    void startCore() throws Exception {
        core = CoreSimulator.start(0, 1_000);
    }

    @AfterEach
    void stopCore() {
        core.close();
    }

    /** A new, empty ledger of the kind named: its relay.db value. */
    private String ledger(String kind) throws Exception {
        return kind.equals("sqlite") ? dir.resolve("ledger.db").toString() : Postgres.shared().newLedger();
    }

    private static LedgerFile file(String ledger) {
        return ledger.startsWith("jdbc:") ? LedgerFile.at(ledger) : new LedgerFile(Path.of(ledger));
    }

    private RelayUnderTest relay(String ledger, int batchSize) throws Exception {
        RelayUnderTest.Builder builder = ledger.startsWith("jdbc:") ? RelayUnderTest.onLedger(ledger, core.url())
                : RelayUnderTest.on(Path.of(ledger), core.url());
        return builder.with("relay.jobs.batch-size", Integer.toString(batchSize)).start();
    }

    /**
     * The rows every test starts from: {@code due} DONE rows 8 days old (GUIDs starting OLDDONE), and rows no purge
     * with --days 7 may touch: 200 DONE rows 6 days old, and 100 rows 30 days old in each other state.
     */
    private static void fill(LedgerFile ledger, int due) throws Exception {
        ledger.fill("OLDDONE", due, "DONE", "0000", 8 * DAY);
        ledger.fill("NEWDONE", 200, "DONE", "0000", 6 * DAY);
        ledger.fill("OLDUNKNOWN", 100, "UNKNOWN", "E901", 30 * DAY);
        ledger.fill("OLDFAILED", 100, "FAILED", "E902", 30 * DAY);
        ledger.fill("OLDSENT", 100, "SENT", null, 30 * DAY);
        ledger.fill("OLDRECEIVED", 100, "RECEIVED", null, 30 * DAY);
    }

    /** Every row that no purge may touch is still there. */
    private static void assertKept(LedgerFile ledger) throws Exception {
        assertEquals(200, ledger.queryLong("SELECT COUNT(*) FROM tx WHERE guid LIKE 'NEWDONE%' AND state = 'DONE'"));
        for (String state : new String[] {"UNKNOWN", "FAILED", "SENT", "RECEIVED"}) {
            assertEquals(100, ledger.queryLong("SELECT COUNT(*) FROM tx WHERE guid LIKE 'OLD" + state + "%' AND state = '" + state + "'"),
                    state);
        }
    }

    private static long due(LedgerFile ledger) throws Exception {
        return ledger.queryLong("SELECT COUNT(*) FROM tx WHERE guid LIKE 'OLDDONE%'");
    }

    private static void assertSummary(String rowsAndBatches, String summary) {
        assertTrue(summary.matches(Pattern.quote(rowsAndBatches) + "\\d+\\.\\d s, \\d+\\.\\d s of it paused for other writers; 0 history rows past 90 days"), summary);
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void aTransferSentWhileAPurgeRunsIsAnsweredBeforeThePurgeEnds(String kind) throws Exception {
        String ledger = ledger(kind);
        int due = kind.equals("sqlite") ? 60_000 : 20_000;
        try (RelayUnderTest relay = relay(ledger, 50)) {
            fill(file(ledger), due);
            ProducerTemplate template = relay.relay().context().createProducerTemplate();
            try {
                CompletableFuture<String> purge = template.asyncRequestBody("direct:run-purge", null, String.class);
                Await.until("the purge's first batch", Duration.ofSeconds(30), () -> relay.admin().metrics().get("relay_purge_run_rows") > 0);

                String guid = newGuid();
                try (Channel channel = Channel.open(relay.port)) {
                    assertEquals("0000", Telegram.rspCode(channel.send(transfer(guid))));
                }
                Map<String, Double> metrics = relay.admin().metrics();
                assertEquals(1, metrics.get("relay_purge_running"), "the transfer was answered while the purge ran");
                assertTrue(metrics.get("relay_purge_run_rows") < due, "the purge had rows left when the transfer was answered");

                assertSummary("purge: " + due + " deleted in " + (due / 50 + 1) + " batches, ", purge.get(120, TimeUnit.SECONDS));
                assertEquals(0, due(file(ledger)));
                assertKept(file(ledger));
                assertEquals("DONE", file(ledger).row(guid).get("state"));
            } finally {
                template.stop();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void aPurgeThatAStopEndsLeavesItsBatchesCommittedAndTheNextRunGoesOn(String kind) throws Exception {
        String ledger = ledger(kind);
        int due = kind.equals("sqlite") ? 60_000 : 20_000;
        long left;
        try (RelayUnderTest relay = relay(ledger, 50)) {
            fill(file(ledger), due);
            ProducerTemplate template = relay.relay().context().createProducerTemplate();
            CompletableFuture<String> purge = template.asyncRequestBody("direct:run-purge", null, String.class);
            Await.until("the purge's first batches", Duration.ofSeconds(30), () -> relay.admin().metrics().get("relay_purge_run_rows") >= 500);
            relay.close();
            // the run ends with the stop, after the batch it had in hand
            purge.handle((summary, failure) -> summary).get(60, TimeUnit.SECONDS);
        }
        left = due(file(ledger));
        assertTrue(left > 0 && left <= due - 500, "the stop ended the purge with " + left + " of " + due + " due rows left");
        assertEquals(0, left % 50, "whole batches were committed, none in part: " + left + " left");
        assertKept(file(ledger));

        try (RelayUnderTest relay = relay(ledger, 50)) {
            ProducerTemplate template = relay.relay().context().createProducerTemplate();
            try {
                assertSummary("purge: " + left + " deleted in " + (left / 50 + 1) + " batches, ",
                        template.requestBody("direct:run-purge", null, String.class));
            } finally {
                template.stop();
            }
        }
        assertEquals(0, due(file(ledger)));
        assertKept(file(ledger));
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void onlyDoneRowsOlderThanTheAgeAreDeletedWhateverTheBatchSize(String kind) throws Exception {
        String ledger = ledger(kind);
        // the relay creates the ledger; the one-shot purge command runs beside it, as from cron
        try (RelayUnderTest relay = relay(ledger, 2_000)) {
            LedgerFile rows = file(ledger);
            fill(rows, 0);
            int[][] cases = {{1, 7, 8}, {3, 10, 4}, {5, 10, 3}, {2_000, 9, 1}}; // batch size, due rows, batches
            for (int[] c : cases) {
                rows.fill("OLDDONE" + c[0] + "X", c[1], "DONE", "0000", 8 * DAY);
                OneShot purge = OneShot.withEnvironment(Map.of("RELAY_JOBS_BATCH_SIZE", Integer.toString(c[0])),
                        "purge", "--db", ledger, "--days", "7");
                assertEquals(0, purge.exitCode, purge.toString());
                assertSummary("purge: " + c[1] + " deleted in " + c[2] + (c[2] == 1 ? " batch, " : " batches, "), purge.summary());
                // nobody else wrote to the ledger: the batches followed one another without a pause
                assertTrue(purge.summary().contains(", 0.0 s of it paused for other writers; "), purge.summary());
                assertEquals(0, due(rows), "batch size " + c[0]);
                assertKept(rows);
            }
        }
    }

    /**
     * A process of the release before versioned migrations (6a871d4) runs its schema file at its start, whose trigger
     * deletes each row the purge marks (its schema.sql, line 100, as below). The purge of this build counts its batch by
     * its mark, so it still goes on batch after batch until the due rows are gone, and each is recorded as purged by it.
     */
    @Test
    void onSqliteThePurgeGoesOnWhereAnEarlierReleaseMadeItsDeletingTriggerAgain() throws Exception {
        String ledger = ledger("sqlite");
        try (RelayUnderTest relay = RelayUnderTest.on(Path.of(ledger), core.url()).with("relay.jobs.batch-size", "10")
                .with("relay.name", "relay-purging").start()) {
            LedgerFile rows = file(ledger);
            fill(rows, 25);
            rows.execute("CREATE TRIGGER IF NOT EXISTS tx_delete_purge_marked AFTER UPDATE OF cause ON tx"
                    + " WHEN NEW.cause = 'purge' AND NEW.state = 'DONE' BEGIN DELETE FROM tx WHERE rowid = NEW.rowid; END");
            ProducerTemplate template = relay.relay().context().createProducerTemplate();
            try {
                assertSummary("purge: 25 deleted in 3 batches, ", template.requestBody("direct:run-purge", null, String.class));
            } finally {
                template.stop();
            }
            assertEquals(0, due(rows));
            assertKept(rows);
            assertEquals(25, rows.queryLong("SELECT COUNT(*) FROM tx_history WHERE guid LIKE 'OLDDONE%' AND to_state = 'purged'"
                    + " AND cause = 'purge' AND relay = 'relay-purging'"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void theOneShotPurgeBesideARunningRelayPausesWhileTheRelaysChannelsSend(String kind) throws Exception {
        String ledger = ledger(kind);
        int due = 20_000;
        try (RelayUnderTest relay = relay(ledger, 2_000)) {
            fill(file(ledger), due);
            // the purge command from cron, in batches of 50, beside the relay that channels are sending to; on PostgreSQL
            // with a share under its default of 1 (no pause)
            CompletableFuture<OneShot> purge = CompletableFuture.supplyAsync(() -> OneShot.withEnvironment(
                    Map.of("RELAY_JOBS_BATCH_SIZE", "50", "RELAY_JOBS_POSTGRESQL_BATCH_SHARE", "0.2"), "purge", "--db", ledger, "--days", "7"));
            int answered = 0;
            try (Channel channel = Channel.open(relay.port)) {
                while (!purge.isDone()) {
                    String guid = newGuid();
                    assertEquals("0000", Telegram.rspCode(channel.send(transfer(guid))));
                    answered++;
                }
            }
            OneShot run = purge.get(120, TimeUnit.SECONDS);
            assertEquals(0, run.exitCode, run.toString());
            assertSummary("purge: " + due + " deleted in " + (due / 50 + 1) + " batches, ", run.summary());
            Matcher paused = Pattern.compile(", (\\d+\\.\\d) s of it paused for other writers; ").matcher(run.summary());
            assertTrue(paused.find() && Double.parseDouble(paused.group(1)) > 0,
                    "the purge left the ledger to the relay's " + answered + " transfers between its batches: " + run.summary());
            assertEquals(0, due(file(ledger)));
            assertKept(file(ledger));
        }
    }
}
