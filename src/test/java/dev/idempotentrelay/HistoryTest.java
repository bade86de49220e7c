package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.support.Await;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.CoreClient;
import dev.idempotentrelay.support.EarlierLedgers;
import dev.idempotentrelay.support.LedgerFile;
import dev.idempotentrelay.support.OneShot;
import dev.idempotentrelay.support.Ports;
import dev.idempotentrelay.support.Postgres;
import dev.idempotentrelay.support.RelayUnderTest;
import dev.idempotentrelay.telegram.Telegram;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.camel.ProducerTemplate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SPEC section 5, tx_history, on both ledgers (a real SQLite file, a real PostgreSQL server), through real sockets and
 * the real core simulator: each path of a transfer leaves exactly the history rows its state changes make, each naming
 * the relay and the cause; resends answered from the ledger add none. Read as an operator reads it, through GET
 * /ledger/{guid}/history.
 */
class HistoryTest {

    /** The history of a transfer sent through relay-a's channel that the core took: its claim, then DONE. */
    private static final List<String> THROUGH_THE_CHANNEL = List.of("null>SENT null 1 relay-a channel", "SENT>DONE 0000 1 relay-a channel");

    @TempDir
    Path dir;

    private final List<AutoCloseable> running = new ArrayList<>();
    private String ledger;

    @AfterEach
    void stop() throws Exception {
        for (int i = running.size() - 1; i >= 0; i--) {
            running.get(i).close();
        }
    }

    private <T extends AutoCloseable> T keep(T closeable) {
        running.add(closeable);
        return closeable;
    }

    /** The relay on this test's ledger: a new one of the kind, unless the test made it before. */
    private RelayUnderTest relay(String kind, String coreUrl, long readTimeoutMs) throws Exception {
        if (ledger == null) {
            newLedger(kind);
        }
        RelayUnderTest.Builder builder = kind.equals("sqlite") ? RelayUnderTest.on(Path.of(ledger), coreUrl)
                : RelayUnderTest.onLedger(ledger, coreUrl);
        return keep(builder.readTimeoutMs(readTimeoutMs).with("relay.name", "relay-a").with("relay.reprocess.max-attempts", "3").start());
    }

    private LedgerFile newLedger(String kind) throws Exception {
        ledger = kind.equals("sqlite") ? dir.resolve("ledger.db").toString() : Postgres.shared().newLedger();
        return file();
    }

    private LedgerFile file() {
        return ledger.startsWith("jdbc:") ? LedgerFile.at(ledger) : new LedgerFile(Path.of(ledger));
    }

    /** The GUID's history as GET /ledger/{guid}/history answers it: "from>to rsp_code attempts relay cause" per change. */
    private static List<String> history(RelayUnderTest relay, String guid) throws Exception {
        List<String> changes = new ArrayList<>();
        for (JsonNode change : relay.admin().json("/ledger/" + guid + "/history", 200)) {
            assertTrue(change.get("at").asText().matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d"), change.toString());
            changes.add(change.get("from_state").asText() + ">" + change.get("to_state").asText() + " " + change.get("rsp_code").asText()
                    + " " + change.get("attempts").asText() + " " + change.get("relay").asText() + " " + change.get("cause").asText());
        }
        return changes;
    }

    /** A GUID's history so far, then these changes. */
    private static List<String> followedBy(List<String> before, String... changes) {
        return followedBy(before, List.of(changes));
    }

    private static List<String> followedBy(List<String> before, List<String> changes) {
        List<String> history = new ArrayList<>(before);
        history.addAll(changes);
        return history;
    }

    private static String send(RelayUnderTest relay, byte[] request) throws Exception {
        try (Channel channel = Channel.open(relay.port)) {
            return Telegram.rspCode(channel.send(request));
        }
    }

    private static String runJob(RelayUnderTest relay, String route) {
        ProducerTemplate template = relay.relay().context().createProducerTemplate();
        try {
            return template.requestBody(route, null, String.class);
        } finally {
            template.stop();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void aTransferIsClaimedThenDoneAndResendsAnsweredFromTheLedgerAddNothing(String kind) throws Exception {
        CoreSimulator core = keep(CoreSimulator.start(0, 1_000));
        RelayUnderTest relay = relay(kind, core.url(), 5_000);
        String guid = newGuid();
        assertEquals("0000", send(relay, transfer(guid)));
        assertEquals(THROUGH_THE_CHANNEL, history(relay, guid));

        // a DONE replay and an E904 change nothing, and add no history row
        assertEquals("0000", send(relay, transfer(guid)));
        assertEquals("E904", send(relay, transfer(guid, 1, "another")));
        assertEquals(THROUGH_THE_CHANNEL, history(relay, guid));

        // GET /ledger/{guid} ends with the same history
        JsonNode row = relay.admin().json("/ledger/" + guid, 200);
        assertEquals(2, row.get("history").size());
        assertEquals("relay-a", row.get("relay").asText());
        relay.admin().json("/ledger/" + newGuid() + "/history", 404);
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void anE902ThenAResendThatReachesTheCore(String kind) throws Exception {
        int corePort = Ports.free();
        RelayUnderTest relay = relay(kind, "http://127.0.0.1:" + corePort, 5_000);
        String guid = newGuid();
        assertEquals("E902", send(relay, transfer(guid)));
        keep(CoreSimulator.start(corePort, 1_000));
        assertEquals("0000", send(relay, transfer(guid)));
        assertEquals(List.of("null>SENT null 1 relay-a channel", "SENT>FAILED E902 1 relay-a channel",
                "FAILED>SENT E902 2 relay-a channel", "SENT>DONE 0000 2 relay-a channel"), history(relay, guid));
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void anE901ThenResolveFindsTheTransferAtTheCore(String kind) throws Exception {
        CoreSimulator core = keep(CoreSimulator.start(0, 1_000));
        RelayUnderTest relay = relay(kind, core.url(), 300);
        String guid = newGuid();
        assertEquals("E901", send(relay, transfer(guid, 10_000, "SLOW lunch")));
        assertEquals("E901", send(relay, transfer(guid, 10_000, "SLOW lunch"))); // UNKNOWN: answered from the ledger
        Await.until("the core applied the slow transfer", Duration.ofSeconds(10), () -> new CoreClient(core.url()).inquiryStatus(guid) == 200);
        file().backdate(guid, 120);
        assertEquals("resolve: 1 done, 0 failed, 0 kept", runJob(relay, "direct:run-resolve"));
        assertEquals(List.of("null>SENT null 1 relay-a channel", "SENT>UNKNOWN E901 1 relay-a channel",
                "UNKNOWN>DONE 0000 1 relay-a resolve"), history(relay, guid));
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void anE901ThenResolveFindsNoTransferAtTheCore(String kind) throws Exception {
        CoreSimulator core = keep(CoreSimulator.start(0, 120_000)); // it applies the transfer long after the relay asks
        RelayUnderTest relay = relay(kind, core.url(), 300);
        String guid = newGuid();
        assertEquals("E901", send(relay, transfer(guid, 10_000, "SLOW lunch")));
        file().backdate(guid, 120);
        assertEquals("resolve: 0 done, 1 failed, 0 kept", runJob(relay, "direct:run-resolve"));
        assertEquals(List.of("null>SENT null 1 relay-a channel", "SENT>UNKNOWN E901 1 relay-a channel",
                "UNKNOWN>FAILED E902 1 relay-a resolve"), history(relay, guid));
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void reprocessUpToTheCapThenNothingMore(String kind) throws Exception {
        RelayUnderTest relay = relay(kind, "http://127.0.0.1:" + Ports.free(), 5_000); // the core is down throughout
        String guid = newGuid();
        assertEquals("E902", send(relay, transfer(guid)));
        assertEquals("reprocess: 0 done, 1 failed, 0 unknown, 0 skipped", runJob(relay, "direct:run-reprocess"));
        assertEquals("reprocess: 0 done, 1 failed, 0 unknown, 0 skipped", runJob(relay, "direct:run-reprocess"));
        // attempts 3 of 3: at the cap, the next run finds nothing to do
        assertEquals("reprocess: 0 done, 0 failed, 0 unknown, 0 skipped", runJob(relay, "direct:run-reprocess"));
        assertEquals(List.of("null>SENT null 1 relay-a channel", "SENT>FAILED E902 1 relay-a channel",
                "FAILED>SENT E902 2 relay-a reprocess", "SENT>FAILED E902 2 relay-a reprocess",
                "FAILED>SENT E902 3 relay-a reprocess", "SENT>FAILED E902 3 relay-a reprocess"), history(relay, guid));
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void aStaleSentRowIsMadeUnknownByAnotherRelaysResolve(String kind) throws Exception {
        CoreSimulator core = keep(CoreSimulator.start(0, 3_000));
        RelayUnderTest relay = relay(kind, core.url(), 10_000);
        String guid = newGuid();
        // a call that takes its time: its row stays SENT meanwhile, as a relay that died mid-call leaves it
        CompletableFuture<String> call = CompletableFuture.supplyAsync(() -> {
            try {
                return send(relay, transfer(guid, 10_000, "SLOW lunch"));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Await.until("the claim", Duration.ofSeconds(10), () -> file().row(guid) != null);
        file().backdate(guid, 600);
        OneShot resolve = OneShot.run("resolve", "--db", ledger, "--core", core.url(), "--min-age", "3600", "--sent-stale-after", "300");
        assertEquals("resolve: 0 done, 0 failed, 0 kept, 1 stale SENT made UNKNOWN", resolve.summary(), resolve.toString());
        // the call ends 0000 for its channel, but its result is not recorded over the UNKNOWN: resolve settles it
        assertEquals("0000", call.get(30, TimeUnit.SECONDS));
        String resolver = InetAddress.getLocalHost().getHostName() + ":resolve";
        assertEquals(List.of("null>SENT null 1 relay-a channel", "SENT>UNKNOWN E901 1 " + resolver + " stale-sent"), history(relay, guid));
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void aPurgedGuidsHistoryOutlivesItsRow(String kind) throws Exception {
        CoreSimulator core = keep(CoreSimulator.start(0, 1_000));
        RelayUnderTest relay = relay(kind, core.url(), 5_000);
        String guid = newGuid();
        byte[] request = transfer(guid);
        assertEquals("0000", send(relay, request));
        file().backdate(guid, 8 * 24 * 3_600);
        assertTrue(runJob(relay, "direct:run-purge").startsWith("purge: 1 deleted in 1 batch, "));
        List<String> purged = followedBy(THROUGH_THE_CHANNEL, "DONE>purged 0000 1 relay-a purge");
        assertEquals(purged, history(relay, guid));
        // GET /ledger/{guid}: no row, and the history that says it was here
        JsonNode missing = relay.admin().json("/ledger/" + guid, 404);
        assertEquals(3, missing.get("history").size());
        assertEquals("purged", missing.get("history").get(2).get("to_state").asText());
        assertEquals(null, file().row(guid));

        // sent again after its purge, it is a new transfer to the relay: the GUID's history holds both lives
        assertEquals("0000", send(relay, request));
        List<String> twice = followedBy(purged, THROUGH_THE_CHANNEL);
        assertEquals(twice, history(relay, guid));
        assertEquals(twice.size(), relay.admin().json("/ledger/" + guid, 200).get("history").size());
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void aRowDeletedByHandIsRecordedAsManualAndOneMarkedForThePurgeAsPurgedByTheRelayThatMarkedIt(String kind) throws Exception {
        CoreSimulator core = keep(CoreSimulator.start(0, 1_000));
        RelayUnderTest relay = relay(kind, core.url(), 5_000);
        String byHand = newGuid();
        String marked = newGuid();
        assertEquals("0000", send(relay, transfer(byHand)));
        assertEquals("0000", send(relay, transfer(marked)));
        file().execute("DELETE FROM tx WHERE guid = '" + byHand + "'");
        assertEquals(null, file().row(byHand));
        file().execute("UPDATE tx SET cause = 'purge', relay = 'relay-old' WHERE guid = '" + marked + "'");
        if (kind.equals("sqlite")) {
            // on SQLite a mark for the purge (sql/sqlite/mark-purge-batch.sql) deletes nothing since version 6: the purge's
            // own DELETE does, and the history names the mark
            assertEquals("DONE", file().row(marked).get("state"));
            file().execute("DELETE FROM tx WHERE cause = 'purge' AND state = 'DONE'");
        }
        // on PostgreSQL the row trigger deletes a row so marked, as the purge of a relay made before 2026-12-05 expects
        assertEquals(null, file().row(marked));
        assertEquals(followedBy(THROUGH_THE_CHANNEL, "DONE>purged 0000 1 null manual"), history(relay, byHand));
        assertEquals(followedBy(THROUGH_THE_CHANNEL, "DONE>purged 0000 1 relay-old purge"), history(relay, marked));
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void aChangeOfStateMadeByHandIsRecordedAndTheRelaysOwnOnce(String kind) throws Exception {
        CoreSimulator core = keep(CoreSimulator.start(0, 1_000));
        RelayUnderTest relay = relay(kind, core.url(), 5_000);
        String guid = newGuid();
        assertEquals("0000", send(relay, transfer(guid)));
        // an operator's UPDATE, outside the relay: the schema's trigger records it (the row keeps its last relay and cause)
        file().execute("UPDATE tx SET state = 'FAILED', rsp_code = 'E902' WHERE guid = '" + guid + "'");
        file().execute("UPDATE tx SET rsp_code = 'E902' WHERE guid = '" + guid + "'"); // no change of state: no row
        List<String> byHand = followedBy(THROUGH_THE_CHANNEL, "DONE>FAILED E902 1 relay-a channel");
        assertEquals(byHand, history(relay, guid));
        // and a resend, claimed back by the relay: each of its changes recorded once
        assertEquals("0000", send(relay, transfer(guid)));
        assertEquals(followedBy(byHand, "FAILED>SENT E902 2 relay-a channel", "SENT>DONE 0000 2 relay-a channel"),
                history(relay, guid));
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void aLedgerMadeBeforeTheHistoryHasEachRowsHistoryFromItsFirstChange(String kind) throws Exception {
        // the ledger of a version before the history: table tx without the columns and triggers of the history
        ledger = kind.equals("sqlite") ? dir.resolve("ledger.db").toString() : Postgres.shared().newDatabase();
        LedgerFile rows = file();
        rows.execute("CREATE TABLE tx (guid VARCHAR(32) NOT NULL PRIMARY KEY, tx_code VARCHAR(4) NOT NULL, state VARCHAR(8) NOT NULL"
                + " CHECK (state IN ('RECEIVED', 'SENT', 'DONE', 'UNKNOWN', 'FAILED')), rsp_code VARCHAR(4), request "
                + (kind.equals("sqlite") ? "BLOB NOT NULL, response BLOB" : "BYTEA NOT NULL, response BYTEA")
                + ", attempts INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL, updated_at TEXT NOT NULL)");
        String unknown = newGuid();
        String done = newGuid();
        rows.insert(unknown, "UNKNOWN", "E901", transfer(unknown), null, 1, 120);
        rows.insert(done, "DONE", "0000", transfer(done), new byte[] {'x'}, 1, 8 * 24 * 3_600);
        // migrated: by migrate on PostgreSQL, by the relay's own start on SQLite
        if (kind.equals("postgresql")) {
            LedgerFile.migrated(ledger);
        }
        CoreSimulator core = keep(CoreSimulator.start(0, 1_000)); // it never had the UNKNOWN transfer: 404
        RelayUnderTest relay = relay(kind, core.url(), 300);
        relay.admin().json("/ledger/" + unknown + "/history", 404); // no change of it recorded yet

        assertEquals("resolve: 0 done, 1 failed, 0 kept", runJob(relay, "direct:run-resolve"));
        assertTrue(runJob(relay, "direct:run-purge").startsWith("purge: 1 deleted in 1 batch, "));
        assertEquals(List.of("UNKNOWN>FAILED E902 1 relay-a resolve"), history(relay, unknown));
        assertEquals(List.of("DONE>purged 0000 1 relay-a purge"), history(relay, done));
        // and the FAILED row's next change is found with its first
        assertEquals("reprocess: 1 done, 0 failed, 0 unknown, 0 skipped", runJob(relay, "direct:run-reprocess"));
        assertEquals(List.of("UNKNOWN>FAILED E902 1 relay-a resolve", "FAILED>SENT E902 2 relay-a reprocess",
                "SENT>DONE 0000 2 relay-a reprocess"), history(relay, unknown));
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void theRowsOfTheHistorysFirstVersionStayInEachGuidsHistory(String kind) throws Exception {
        // the ledger as the history's first version (2026-12-03) made and wrote it: that build's ledger, its triggers
        ledger = EarlierLedgers.restore("2026-12-03-history-first", kind, dir);
        LedgerFile rows = file();
        rows.execute("DELETE FROM tx"); // that build's own transfers: only this test's rows are due for resolve and purge
        String done = newGuid();
        String unknown = newGuid();
        rows.insert(done, "SENT", null, transfer(done), null, 1, 0);
        rows.execute("UPDATE tx SET state = 'DONE', rsp_code = '0000', response = request, relay = 'relay-old', cause = 'channel'"
                + " WHERE guid = '" + done + "'");
        rows.insert(unknown, "SENT", null, transfer(unknown), null, 1, 0);
        rows.execute("UPDATE tx SET state = 'UNKNOWN', rsp_code = 'E901', relay = 'relay-old', cause = 'channel'"
                + " WHERE guid = '" + unknown + "'");
        List<String> doneBefore = List.of("null>SENT null 1 null null", "SENT>DONE 0000 1 relay-old channel");
        List<String> unknownBefore = List.of("null>SENT null 1 null null", "SENT>UNKNOWN E901 1 relay-old channel");

        // this version's relay on it, migrated (by the relay itself on SQLite): the rows written before are each GUID's
        // history so far
        if (kind.equals("postgresql")) {
            LedgerFile.migrated(ledger);
        }
        CoreSimulator core = keep(CoreSimulator.start(0, 1_000)); // it never had the UNKNOWN transfer: 404
        RelayUnderTest relay = relay(kind, core.url(), 5_000);
        assertEquals(doneBefore, history(relay, done));
        assertEquals(unknownBefore, history(relay, unknown));

        // and go on with the changes this version records
        file().backdate(unknown, 600);
        assertEquals("resolve: 0 done, 1 failed, 0 kept", runJob(relay, "direct:run-resolve"));
        assertEquals(followedBy(unknownBefore, "UNKNOWN>FAILED E902 1 relay-a resolve"), history(relay, unknown));
        file().backdate(done, 8 * 24 * 3_600);
        assertTrue(runJob(relay, "direct:run-purge").startsWith("purge: 1 deleted in 1 batch, "));
        assertEquals(followedBy(doneBefore, "DONE>purged 0000 1 relay-a purge"), history(relay, done));
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void historyOlderThanItsDaysIsDeletedByThePurgeInBatches(String kind) throws Exception {
        RelayUnderTest relay = relay(kind, "http://127.0.0.1:" + Ports.free(), 5_000);
        LedgerFile rows = file();
        java.time.format.DateTimeFormatter format = java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");
        java.time.LocalDateTime now = java.time.LocalDateTime.now(java.time.ZoneOffset.UTC);
        for (int i = 0; i < 30; i++) {
            String at = now.minusDays(i < 25 ? 100 : 80).format(format);
            rows.execute("INSERT INTO tx_history (guid, at, from_state, to_state, rsp_code, attempts, relay, cause) VALUES ('"
                    + String.format("OLD%029d", i) + "', '" + at + "', 'DONE', 'purged', '0000', 1, 'relay-z', 'purge')");
        }
        OneShot purge = OneShot.withEnvironment(java.util.Map.of("RELAY_JOBS_BATCH_SIZE", "10"), "purge", "--db", ledger, "--days", "7");
        assertTrue(purge.summary().matches("purge: 0 deleted in 1 batch, \\d+\\.\\d s, \\d+\\.\\d s of it paused for other writers; 25 history rows past 90 days"), purge.toString());
        assertEquals(5, rows.queryLong("SELECT COUNT(*) FROM tx_history WHERE guid LIKE 'OLD%'"));
        assertEquals(5, rows.queryLong("SELECT COUNT(*) FROM tx_history WHERE at > '" + now.minusDays(90).format(format) + "'"));
    }
}
