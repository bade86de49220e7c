package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.support.Await;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.CoreClient;
import dev.idempotentrelay.support.LedgerFile;
import dev.idempotentrelay.support.OneShot;
import dev.idempotentrelay.support.Postgres;
import dev.idempotentrelay.support.RelayUnderTest;
import dev.idempotentrelay.support.Resources;
import dev.idempotentrelay.telegram.Telegram;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.camel.ProducerTemplate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A PostgreSQL ledger whose commits wait for a synchronous standby that is not there (synchronous_standby_names names
 * one that never connects, as on a new primary that kept the old one's setting after a failover): SPEC section 9.
 * A claim whose commit hangs is answered E902 within relay.db.connect-wait-ms, never sent to the core; /health is
 * DOWN; a commit that comes back only because its wait was cancelled, or whose connection is lost, is not taken as
 * acknowledged; and each such row, once its commit completes, is settled by the timed work and reaches the core once.
 * A batch of the timed work, whose caller is no channel, waits for its commit past that bound (relay.jobs.commit-wait-ms),
 * and so does a one-shot command for a ledger server that is down for a moment.
 */
class CommitWaitingForAStandbyTest {

    private static Postgres server;

    @RegisterExtension
    final Resources running = new Resources();

    private CoreSimulator core;
    private CoreClient coreView;
    private String ledger;

    @BeforeAll
    static void startServer() throws Exception {
        server = Postgres.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @BeforeEach
    void coreAndLedger() throws Exception {
        core = running.keep(CoreSimulator.start(0, 1_000));
        coreView = new CoreClient(core.url());
        ledger = server.newLedger();
    }

    @AfterEach
    void noStandbyAwaited() throws Exception {
        // whatever a test left waiting is released
        server.requireAbsentStandby(null);
    }

    private static byte[] send(RelayUnderTest relay, byte[] request) throws Exception {
        try (Channel channel = Channel.open(relay.port)) {
            return channel.send(request);
        }
    }

    private Map<String, Object> row(String guid) throws Exception {
        return LedgerFile.at(ledger).row(guid);
    }

    /**
     * The backend of the relay whose claim of this GUID waits for the synchronous standby, once it does: its statement
     * is the claim (a write committed alone) or the COMMIT of the group that holds it (group commit). The patient relay
     * makes no other write meanwhile.
     */
    private String backendWaitingFor(String guid) throws Exception {
        String find = "SELECT pid FROM pg_stat_activity WHERE application_name = 'idempotent-relay' AND wait_event = 'SyncRep'"
                + " AND (query LIKE 'INSERT INTO tx%' OR query = 'COMMIT')";
        Await.until("the claim of " + guid + " waits for the synchronous standby", Duration.ofSeconds(30),
                () -> server.query(find) != null);
        return server.query(find);
    }

    @Test
    void aClaimWhoseCommitHangsIsE902WithinTheBoundHealthIsDownAndTheRowReachesTheCoreOnceWhenItCompletes() throws Exception {
        RelayUnderTest relay = running.keep(RelayUnderTest.onLedger(ledger, core.url())
                .with("relay.db.connect-wait-ms", "1000")
                .with("relay.jobs.enabled", "true").with("relay.jobs.every", "1")
                .with("relay.resolve.min-age", "1").with("relay.resolve.sent-stale-after", "2").readTimeoutMs(1_000)
                .start());
        assertEquals("0000", Telegram.rspCode(send(relay, transfer(newGuid()))));
        JsonNode health = relay.admin().json("/health", 200);
        assertEquals("UP", health.get("ledger").asText());
        assertEquals("NO_STANDBY", health.get("replication").get("status").asText(), health.toString());
        assertEquals(1.0, relay.admin().metric("relay_ledger_writable"));
        assertEquals(0.0, relay.admin().metric("relay_ledger_unsafe_replication"));

        server.requireAbsentStandby("absent");
        String guid = newGuid();
        byte[] request = transfer(guid);
        assertEquals("E902", Telegram.rspCode(send(relay, request)), "a claim whose commit hangs");
        assertEquals(0, coreView.calls(guid));
        // its resend: the waiting claim's row is not visible yet, and a new claim of the GUID waits behind it
        assertEquals("E902", Telegram.rspCode(send(relay, request)), "a resend while the first claim's commit waits");
        health = relay.admin().json("/health", 503);
        assertEquals("DOWN", health.get("ledger").asText());
        // the probe commit waits behind the hanging ones, or is not even taken while both writers hold one (it never ran)
        assertTrue(health.get("checks").toString().matches(".*(did not complete|did not take this write) within 1000 ms.*"),
                health.toString());
        assertEquals(0.0, relay.admin().metric("relay_ledger_writable"));
        assertEquals(0, coreView.calls(guid), "nothing sent while the commit waits");

        // the standby requirement lifted: the waiting commits complete; the claim's row, acknowledged to no one, is
        // settled by the timed work (stale SENT, UNKNOWN, inquiry 404, FAILED, reprocess) and reaches the core once
        server.requireAbsentStandby(null);
        Await.until("the row is settled DONE", Duration.ofSeconds(60),
                () -> row(guid) != null && "DONE".equals(row(guid).get("state")));
        assertEquals(1, coreView.calls(guid));
        assertEquals(2, ((Number) row(guid).get("attempts")).intValue(), "the claim, then the reprocess");
        byte[] resent = send(relay, request);
        assertEquals("0000", Telegram.rspCode(resent));
        assertArrayEquals((byte[]) row(guid).get("response"), resent);
        assertEquals(1, coreView.calls(guid));
        assertEquals("UP", relay.admin().json("/health", 200).get("ledger").asText());
        assertEquals(1.0, relay.admin().metric("relay_ledger_writable"));
    }

    @Test
    void aPurgeBatchWaitsForItsCommitPastTheClaimsBoundAndTheRunGoesOnOnceItCompletes() throws Exception {
        RelayUnderTest relay = running.keep(RelayUnderTest.onLedger(ledger, core.url())
                .with("relay.db.connect-wait-ms", "1000").start());
        LedgerFile rows = LedgerFile.at(ledger);
        rows.fill("OLDDONE", 10, "DONE", "0000", 8 * 24 * 3_600);
        server.requireAbsentStandby("absent");
        ProducerTemplate template = relay.relay().context().createProducerTemplate();
        try {
            CompletableFuture<String> purge = template.asyncRequestBody("direct:run-purge", null, String.class);
            String find = "SELECT pid FROM pg_stat_activity WHERE application_name = 'idempotent-relay' AND wait_event = 'SyncRep'"
                    + " AND query LIKE 'WITH batch%'";
            Await.until("the purge's batch waits for the synchronous standby", Duration.ofSeconds(30), () -> server.query(find) != null);
            // a claim sent after that is answered E902 once the claims' bound (1 s) passed: the batch has waited longer
            assertEquals("E902", Telegram.rspCode(send(relay, transfer(newGuid()))));
            assertFalse(purge.isDone(), "the purge waits for its batch's commit past the claims' bound");

            server.requireAbsentStandby(null);
            String summary = purge.get(30, TimeUnit.SECONDS);
            assertTrue(summary.startsWith("purge: 10 deleted in 1 batch, "), summary);
            assertEquals(0, rows.queryLong("SELECT COUNT(*) FROM tx WHERE guid LIKE 'OLDDONE%'"));
        } finally {
            template.stop();
        }
    }

    @Test
    void aOneShotPurgeWaitsForALedgerServerDownLongerThanTheClaimsBoundAndCompletes() throws Exception {
        // the ledger made by a first run, then rows for the second to purge
        assertEquals(0, OneShot.run("purge", "--db", ledger, "--days", "7").exitCode);
        LedgerFile.at(ledger).fill("OLDDONE", 10, "DONE", "0000", 8 * 24 * 3_600);
        server.stopServer();
        CompletableFuture<OneShot> purge;
        try {
            purge = CompletableFuture.supplyAsync(() -> OneShot.withEnvironment(Map.of("RELAY_DB_CONNECT_WAIT_MS", "1000"),
                    "purge", "--db", ledger, "--days", "7"));
            // the server down for 3 s, three times the claims' bound: a restart, a failover
            Thread.sleep(3_000);
            assertFalse(purge.isDone(), "the command waits for the ledger past the claims' bound: " + (purge.isDone() ? purge.get() : ""));
        } finally {
            server.startServer();
        }
        OneShot run = purge.get(60, TimeUnit.SECONDS);
        assertEquals(0, run.exitCode, run.toString());
        assertTrue(run.summary().startsWith("purge: 10 deleted in 1 batch, "), run.toString());
    }

    @Test
    void aCommitWhoseWaitForTheStandbyIsCancelledIsNotAcknowledgedAndTheCoreIsNotCalled() throws Exception {
        RelayUnderTest relay = patientRelay();
        String guid = newGuid();
        CompletableFuture<byte[]> reply = claimWaitingForTheStandby(relay, guid);
        // what an operator or a failover tool does to commits that wait: PostgreSQL then returns the commit with a
        // warning, the row committed on this server only
        server.query("SELECT pg_cancel_backend(" + backendWaitingFor(guid) + ")");
        assertEquals("E902", Telegram.rspCode(reply.get(30, TimeUnit.SECONDS)));
        assertEquals(0, coreView.calls(guid));
        assertEquals("SENT", row(guid).get("state"), "committed locally, acknowledged to no one");
    }

    @Test
    void aConnectionLostDuringTheCommitIsE902WithoutACoreCallAndTheRelayServesOn() throws Exception {
        RelayUnderTest relay = patientRelay();
        String guid = newGuid();
        CompletableFuture<byte[]> reply = claimWaitingForTheStandby(relay, guid);
        // the backend ends inside the commit: the relay never hears how it ended
        server.query("SELECT pg_terminate_backend(" + backendWaitingFor(guid) + ")");
        assertEquals("E902", Telegram.rspCode(reply.get(30, TimeUnit.SECONDS)));
        assertEquals(0, coreView.calls(guid));
        assertEquals("SENT", row(guid).get("state"), "committed locally, acknowledged to no one");
        server.requireAbsentStandby(null);
        assertEquals("0000", Telegram.rspCode(send(relay, transfer(newGuid()))));
    }

    /**
     * A relay whose bound is long enough that it is still waiting for the commit when the test ends the wait, and whose
     * ledger watch made its one probe commit before the test's claim (its next is an hour away).
     */
    private RelayUnderTest patientRelay() throws Exception {
        RelayUnderTest relay = running.keep(RelayUnderTest.onLedger(ledger, core.url()).with("relay.db.connect-wait-ms", "60000")
                .with("relay.db.check-every", "3600").start());
        Await.until("the relay's probe commit at start", Duration.ofSeconds(30),
                () -> relay.admin().metric("relay_ledger_writable") == 1.0);
        return relay;
    }

    /** A transfer sent on a channel of its own once every commit waits for the absent standby; its reply to come. */
    private CompletableFuture<byte[]> claimWaitingForTheStandby(RelayUnderTest relay, String guid) throws Exception {
        server.requireAbsentStandby("absent");
        return CompletableFuture.supplyAsync(() -> {
            try {
                return send(relay, transfer(guid));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }
}
