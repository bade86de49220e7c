package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.text;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.support.Await;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.CoreClient;
import dev.idempotentrelay.support.LedgerFile;
import dev.idempotentrelay.support.OneShot;
import dev.idempotentrelay.support.Ports;
import dev.idempotentrelay.support.RelayUnderTest;
import dev.idempotentrelay.support.Resources;
import dev.idempotentrelay.telegram.Telegram;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.camel.ProducerTemplate;
import org.junit.jupiter.api.Test;
import org.apache.camel.api.management.ManagedCamelContext;
import org.apache.camel.api.management.mbean.ManagedRouteMBean;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** SPEC section 6: resolve, reprocess and purge, as one-shot commands and as the running relay's timed routes. */
class TimedRoutesTest {

    @TempDir
    Path dir;

    @RegisterExtension
    final Resources running = new Resources();

    private Path db() {
        return dir.resolve("ledger.db");
    }

    /** A ledger with the schema applied, by starting and stopping a relay on it. */
    private LedgerFile emptyLedger() throws Exception {
        RelayUnderTest.on(db(), "http://localhost:" + Ports.free()).start().close();
        return new LedgerFile(db());
    }

    private static int attempts(Map<String, Object> row) {
        return ((Number) row.get("attempts")).intValue();
    }

    @Test
    void theMinAgeTrapResolveWaitsUntilTheCoreMustHaveFinished() throws Exception {
        CoreSimulator core = running.keep(CoreSimulator.start(0, 1_500));
        CoreClient coreView = new CoreClient(core.url());
        RelayUnderTest relay = running.keep(RelayUnderTest.on(db(), core.url()).readTimeoutMs(300).start());
        String guid = newGuid();
        byte[] request = transfer(guid, 10_000, "SLOW lunch");
        try (Channel channel = Channel.open(relay.port)) {
            assertEquals("E901", Telegram.rspCode(channel.send(request)));
        }

        // before min-age: the core may still be working on it (its inquiry would say 404), so the row is not asked about
        OneShot early = OneShot.run("resolve", "--db", db().toString(), "--core", core.url(), "--min-age", "60");
        assertEquals(0, early.exitCode, early.toString());
        assertEquals("resolve: 0 done, 0 failed, 0 kept", early.summary());
        assertEquals("UNKNOWN", relay.ledger.row(guid).get("state"));

        Await.until("the core applied the slow transfer", Duration.ofSeconds(10), () -> coreView.inquiryStatus(guid) == 200);
        relay.ledger.age(guid, 61); // a minute passes
        OneShot late = OneShot.run("resolve", "--db", db().toString(), "--core", core.url(), "--min-age", "60");
        assertEquals("resolve: 1 done, 0 failed, 0 kept", late.summary(), late.toString());

        Map<String, Object> row = relay.ledger.row(guid);
        assertEquals("DONE", row.get("state"));
        assertEquals("0000", row.get("rsp_code"));
        byte[] stored = (byte[]) row.get("response");
        assertEquals("TR01R" + guid + "MOB10000CR00000000000001000000999990000", text(stored).substring(0, 76));
        assertTrue(text(stored).substring(76).matches("20[0-9]{12}"));
        try (Channel channel = Channel.open(relay.port)) {
            assertArrayEquals(stored, channel.send(request));
        }
        assertEquals(1, coreView.calls(guid));
        assertEquals(1, coreView.calls());
    }

    @Test
    void resolveMakes404FailedKeepsRowsWhenTheCoreIsDownAndNeverPosts() throws Exception {
        LedgerFile ledger = emptyLedger();
        String neverArrived = newGuid();
        ledger.insert(neverArrived, "UNKNOWN", "E901", transfer(neverArrived), null, 1, 120);
        String staleSent = newGuid();
        ledger.insert(staleSent, "SENT", null, transfer(staleSent), null, 1, 300);
        String young = newGuid();
        ledger.insert(young, "UNKNOWN", "E901", transfer(young), null, 1, 5);

        OneShot down = OneShot.run("resolve", "--db", db().toString(), "--core", "http://localhost:" + Ports.free(),
                "--min-age", "60", "--sent-stale-after", "120");
        assertEquals(0, down.exitCode, down.toString());
        assertEquals("resolve: 0 done, 0 failed, 2 kept, 1 stale SENT made UNKNOWN", down.summary());
        assertEquals("UNKNOWN", ledger.row(neverArrived).get("state"));
        assertEquals("UNKNOWN", ledger.row(staleSent).get("state"));
        assertEquals("E901", ledger.row(staleSent).get("rsp_code"));

        CoreSimulator core = running.keep(CoreSimulator.start(0, 1_000));
        OneShot up = OneShot.run("resolve", "--db", db().toString(), "--core", core.url(), "--min-age", "60");
        assertEquals("resolve: 0 done, 2 failed, 0 kept", up.summary(), up.toString());
        for (String guid : List.of(neverArrived, staleSent)) {
            Map<String, Object> row = ledger.row(guid);
            assertEquals("FAILED", row.get("state"));
            assertEquals("E902", row.get("rsp_code"));
            assertNull(row.get("response"));
        }
        assertEquals("UNKNOWN", ledger.row(young).get("state"));
        assertEquals(0, new CoreClient(core.url()).calls(), "resolve never POSTs");
    }

    @Test
    void reprocessSendsOnlyFailedE902UnderTheCapOnceWithTheSameGuid() throws Exception {
        LedgerFile ledger = emptyLedger();
        String due = newGuid();
        ledger.insert(due, "FAILED", "E902", transfer(due), null, 1, 30);
        String capped = newGuid();
        ledger.insert(capped, "FAILED", "E902", transfer(capped), null, 3, 30);
        String otherCode = newGuid();
        ledger.insert(otherCode, "FAILED", "E500", transfer(otherCode), null, 1, 30);
        String unknown = newGuid();
        ledger.insert(unknown, "UNKNOWN", "E901", transfer(unknown), null, 1, 3_600);
        String done = newGuid();
        ledger.insert(done, "DONE", "0000", transfer(done), new byte[] {'x'}, 1, 30);

        CoreSimulator core = running.keep(CoreSimulator.start(0, 1_000));
        CoreClient coreView = new CoreClient(core.url());
        OneShot first = OneShot.run("reprocess", "--db", db().toString(), "--core", core.url(), "--max-attempts", "3");
        assertEquals(0, first.exitCode, first.toString());
        assertEquals("reprocess: 1 done, 0 failed, 0 unknown, 0 skipped", first.summary());
        Map<String, Object> row = ledger.row(due);
        assertEquals("DONE", row.get("state"));
        assertEquals("0000", row.get("rsp_code"));
        assertEquals(2, attempts(row));
        assertEquals("TR01R" + due + "MOB10000", text((byte[]) row.get("response")).substring(0, 45));
        assertEquals(1, coreView.calls(due));
        assertEquals(1, coreView.calls(), "only the due row reached the core");
        assertEquals("FAILED", ledger.row(capped).get("state"));
        assertEquals("FAILED", ledger.row(otherCode).get("state"));
        assertEquals("UNKNOWN", ledger.row(unknown).get("state"));

        OneShot again = OneShot.run("reprocess", "--db", db().toString(), "--core", core.url(), "--max-attempts", "3");
        assertEquals("reprocess: 0 done, 0 failed, 0 unknown, 0 skipped", again.summary());
        assertEquals(1, coreView.calls());
    }

    @Test
    void reprocessWhileTheCoreIsStillDownCountsTheAttemptAndStopsAtTheCap() throws Exception {
        LedgerFile ledger = emptyLedger();
        String guid = newGuid();
        ledger.insert(guid, "FAILED", "E902", transfer(guid), null, 1, 30);
        String down = "http://localhost:" + Ports.free();
        assertEquals("reprocess: 0 done, 1 failed, 0 unknown, 0 skipped",
                OneShot.run("reprocess", "--db", db().toString(), "--core", down, "--max-attempts", "3").summary());
        assertEquals(2, attempts(ledger.row(guid)));
        assertEquals("reprocess: 0 done, 1 failed, 0 unknown, 0 skipped",
                OneShot.run("reprocess", "--db", db().toString(), "--core", down, "--max-attempts", "3").summary());
        assertEquals(3, attempts(ledger.row(guid)));
        assertEquals("reprocess: 0 done, 0 failed, 0 unknown, 0 skipped",
                OneShot.run("reprocess", "--db", db().toString(), "--core", down, "--max-attempts", "3").summary());
        assertEquals("FAILED", ledger.row(guid).get("state"));
        assertEquals(3, attempts(ledger.row(guid)));
    }

    @Test
    void concurrentReprocessRunsNeverSendOneGuidTwice() throws Exception {
        LedgerFile ledger = emptyLedger();
        List<String> guids = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            String guid = newGuid();
            guids.add(guid);
            ledger.insert(guid, "FAILED", "E902", transfer(guid), null, 1, 30);
        }
        CoreSimulator core = running.keep(CoreSimulator.start(0, 1_000));
        CoreClient coreView = new CoreClient(core.url());
        RelayUnderTest relay = running.keep(RelayUnderTest.on(db(), core.url()).start());
        ProducerTemplate template = running.keep(relay.relay().context().createProducerTemplate());
        int runs = 4;
        CyclicBarrier together = new CyclicBarrier(runs);
        ExecutorService pool = Executors.newFixedThreadPool(runs);
        List<Future<String>> summaries = new ArrayList<>();
        try {
            for (int i = 0; i < runs; i++) {
                summaries.add(pool.submit(() -> {
                    together.await(10, TimeUnit.SECONDS);
                    return template.requestBody("direct:run-reprocess", null, String.class);
                }));
            }
            int done = 0;
            for (Future<String> summary : summaries) {
                String line = summary.get(60, TimeUnit.SECONDS);
                done += Integer.parseInt(line.replaceAll("reprocess: (\\d+) done.*", "$1"));
            }
            assertEquals(guids.size(), done, "each row was sent by exactly one of the runs");
        } finally {
            pool.shutdownNow();
        }
        for (String guid : guids) {
            assertEquals(1, coreView.calls(guid), guid);
            assertEquals("DONE", ledger.row(guid).get("state"));
            assertEquals(2, attempts(ledger.row(guid)));
        }
        assertEquals(guids.size(), coreView.calls());
    }

    @Test
    void purgeDeletesOnlyOldDoneRows() throws Exception {
        LedgerFile ledger = emptyLedger();
        long eightDays = 8 * 24 * 3_600;
        String oldDone = newGuid();
        ledger.insert(oldDone, "DONE", "0000", transfer(oldDone), new byte[] {'x'}, 1, eightDays);
        String recentDone = newGuid();
        ledger.insert(recentDone, "DONE", "0000", transfer(recentDone), new byte[] {'x'}, 1, 6 * 24 * 3_600);
        List<String> kept = new ArrayList<>(List.of(recentDone));
        for (String state : List.of("UNKNOWN", "FAILED", "SENT", "RECEIVED")) {
            String guid = newGuid();
            ledger.insert(guid, state, null, transfer(guid), null, 1, eightDays);
            kept.add(guid);
        }
        OneShot purge = OneShot.run("purge", "--db", db().toString(), "--days", "7");
        assertEquals(0, purge.exitCode, purge.toString());
        assertSummary("purge: 1 deleted in 1 batch, ", purge);
        assertNull(ledger.row(oldDone));
        for (String guid : kept) {
            assertNotNull(ledger.row(guid), guid);
        }
        assertSummary("purge: 0 deleted in 1 batch, ", OneShot.run("purge", "--db", db().toString(), "--days", "7"));
    }

    /** A purge run's summary: its rows and batches as given, then its duration. */
    private static void assertSummary(String rowsAndBatches, OneShot run) {
        assertTrue(run.summary().matches(java.util.regex.Pattern.quote(rowsAndBatches) + "\\d+\\.\\d s, \\d+\\.\\d s of it paused for other writers; 0 history rows past 90 days"), run.toString());
    }

    @Test
    void oneShotCommandsRefuseBadArgumentsAndAMissingLedgerWithOneLineAndExit2() throws Exception {
        OneShot missing = OneShot.run("purge", "--db", dir.resolve("nothing.db").toString(), "--days", "7");
        assertEquals(2, missing.exitCode);
        assertEquals(List.of("idempotent-relay: purge: no ledger at " + dir.resolve("nothing.db")
                + " (the relay creates it on its first start)"), missing.err);
        OneShot noCore = OneShot.run("resolve", "--db", db().toString(), "--min-age", "60");
        assertEquals(2, noCore.exitCode);
        assertEquals(List.of("idempotent-relay: resolve: --core is required (or relay.core.url in --config FILE, or RELAY_CORE_URL)"),
                noCore.err);
        OneShot badCap = OneShot.run("reprocess", "--db", db().toString(), "--core", "http://localhost:1", "--max-attempts", "0");
        assertEquals(2, badCap.exitCode);
        assertEquals(List.of("idempotent-relay: reprocess: --max-attempts must be a whole number of at least 1, not '0'"), badCap.err);
    }

    @Test
    void theRunningRelaysTimedRoutesResolveAnUnknownAndReprocessAFailedOnTheirOwn() throws Exception {
        int corePort = Ports.free();
        RelayUnderTest relay = running.keep(RelayUnderTest.on(db(), "http://localhost:" + corePort)
                .readTimeoutMs(300)
                .with("relay.jobs.enabled", "true")
                .with("relay.jobs.every", "1")
                .with("relay.resolve.min-age", "3")
                .with("relay.resolve.sent-stale-after", "10")
                .with("relay.reprocess.max-attempts", "100")
                .start());
        String failed = newGuid();
        String unknown = newGuid();
        try (Channel channel = Channel.open(relay.port)) {
            assertEquals("E902", Telegram.rspCode(channel.send(transfer(failed))));
            CoreSimulator core = running.keep(CoreSimulator.start(corePort, 1_500));
            assertEquals("E901", Telegram.rspCode(channel.send(transfer(unknown, 10_000, "SLOW lunch"))));
            CoreClient coreView = new CoreClient(core.url());

            Await.until("the timed routes settled both rows", Duration.ofSeconds(30),
                    () -> "DONE".equals(relay.ledger.row(failed).get("state"))
                            && "DONE".equals(relay.ledger.row(unknown).get("state")));
            assertEquals(1, coreView.calls(failed));
            assertEquals(1, coreView.calls(unknown));
            assertEquals("0000", relay.ledger.row(failed).get("rsp_code"));
            assertEquals("0000", relay.ledger.row(unknown).get("rsp_code"));
            assertArrayEquals((byte[]) relay.ledger.row(unknown).get("response"),
                    channel.send(transfer(unknown, 10_000, "SLOW lunch")));
            assertEquals(2, coreView.calls());
        }
    }

    @Test
    void theTimedPurgeRunsOneIntervalAfterTheStartNotAtIt() throws Exception {
        RelayUnderTest relay = running.keep(RelayUnderTest.on(db(), "http://localhost:" + Ports.free())
                .with("relay.jobs.enabled", "true")
                .with("relay.jobs.purge-every", "8")
                .start());
        String old = newGuid();
        relay.ledger.insert(old, "DONE", "0000", transfer(old), new byte[] {'x'}, 1, 8 * 24 * 3_600);
        ManagedRouteMBean timer = relay.relay().context().getCamelContextExtension().getContextPlugin(ManagedCamelContext.class)
                .getManagedRoute("purge-ledger");

        // Quartz fires the new timer as the relay starts: that firing is skipped, and the due row stays
        Await.until("the purge timer's first firing", Duration.ofSeconds(10), () -> timer.getExchangesCompleted() >= 1);
        assertEquals(0, relay.admin().metrics().get("relay_job_runs_total{job=\"purge\"}"));
        assertNotNull(relay.ledger.row(old));

        // one interval later the purge runs
        Await.until("the purge timer's second firing", Duration.ofSeconds(40), () -> timer.getExchangesCompleted() >= 2);
        assertEquals(1, relay.admin().metrics().get("relay_job_runs_total{job=\"purge\"}"));
        assertNull(relay.ledger.row(old));
    }
}
