package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.text;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.support.Await;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.OneShot;
import dev.idempotentrelay.support.CoreClient;
import dev.idempotentrelay.support.LedgerFile;
import dev.idempotentrelay.support.Ports;
import dev.idempotentrelay.support.Postgres;
import dev.idempotentrelay.support.RelayUnderTest;
import dev.idempotentrelay.telegram.Telegram;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two relays in this JVM on one PostgreSQL ledger (a real server, {@link Postgres}), behaving to channels and to
 * the core as one relay (SPEC section 9): each GUID reaches the core at most once across both, and a resend to
 * either gets what the row's state says.
 */
class SeveralRelaysOneLedgerTest {

    private CoreSimulator core;
    private CoreClient coreView;
    private String ledger;
    private final List<RelayUnderTest> relays = new ArrayList<>();

    @BeforeEach
    void startCoreAndLedger() throws Exception {
        core = CoreSimulator.start(0, 1_500);
        coreView = new CoreClient(core.url());
        ledger = Postgres.shared().newLedger();
    }

    @AfterEach
    void stopAll() {
        relays.forEach(RelayUnderTest::close);
        core.close();
    }

    private RelayUnderTest relay(String coreUrl) throws Exception {
        RelayUnderTest relay = RelayUnderTest.onLedger(ledger, coreUrl).start();
        relays.add(relay);
        return relay;
    }

    private static byte[] send(RelayUnderTest relay, byte[] request) throws Exception {
        try (Channel channel = Channel.open(relay.port)) {
            return channel.send(request);
        }
    }

    private Map<String, Object> row(String guid) throws Exception {
        return LedgerFile.at(ledger).row(guid);
    }

    @Test
    void aResendToTheOtherRelayGetsTheStoredReplyByteForByte() throws Exception {
        RelayUnderTest a = relay(core.url());
        RelayUnderTest b = relay(core.url());
        String guid = newGuid();
        byte[] first = send(a, transfer(guid));
        assertEquals("0000", Telegram.rspCode(first));
        byte[] again = send(b, transfer(guid));
        assertArrayEquals(first, again);
        assertArrayEquals(first, (byte[]) row(guid).get("response"));
        assertEquals(1, coreView.calls(guid));
    }

    @Test
    void oneGuidSentToBothRelaysAtOnceReachesTheCoreOnce() throws Exception {
        RelayUnderTest a = relay(core.url());
        RelayUnderTest b = relay(core.url());
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            for (int round = 0; round < 20; round++) {
                String guid = newGuid();
                byte[] request = transfer(guid);
                CountDownLatch go = new CountDownLatch(1);
                List<Future<byte[]>> replies = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    RelayUnderTest target = i % 2 == 0 ? a : b;
                    replies.add(pool.submit(() -> {
                        try (Channel channel = Channel.open(target.port)) {
                            go.await();
                            return channel.send(request);
                        }
                    }));
                }
                go.countDown();
                int accepted = 0;
                for (Future<byte[]> reply : replies) {
                    String code = Telegram.rspCode(reply.get(30, TimeUnit.SECONDS));
                    assertTrue(code.equals("0000") || code.equals("E903"), guid + " answered " + code);
                    accepted += code.equals("0000") ? 1 : 0;
                }
                assertTrue(accepted >= 1, "no sender got the core's answer for " + guid);
                assertEquals(1, coreView.calls(guid), guid);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void inFlightOnOneIsE903OnTheOtherUnknownIsE901AndAnotherRequestIsE904() throws Exception {
        RelayUnderTest a = relay(core.url());
        RelayUnderTest b = relay(core.url());
        // in flight at A (the core waits on SLOW): B answers E903 at once, without a core call
        String slow = newGuid();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<byte[]> first = pool.submit(() -> send(a, transfer(slow, 10_000, "SLOW in flight")));
            Await.until("the claim is in the ledger", Duration.ofSeconds(10), () -> row(slow) != null);
            assertEquals("E903", Telegram.rspCode(send(b, transfer(slow, 10_000, "SLOW in flight"))));
            assertEquals("0000", Telegram.rspCode(first.get(30, TimeUnit.SECONDS)));
            assertEquals(1, coreView.calls(slow));
        } finally {
            pool.shutdownNow();
        }
        // the same GUID with another request: E904 from either relay, the row untouched
        assertEquals("E904", Telegram.rspCode(send(b, transfer(slow, 20_000, "SLOW in flight"))));
        assertEquals("DONE", row(slow).get("state"));

        // sent by a relay whose read timeout passed (UNKNOWN): the other answers E901 and never resends
        relays.forEach(RelayUnderTest::close);
        relays.clear();
        RelayUnderTest impatient = RelayUnderTest.onLedger(ledger, core.url()).readTimeoutMs(300).start();
        relays.add(impatient);
        RelayUnderTest other = relay(core.url());
        String unknown = newGuid();
        assertEquals("E901", Telegram.rspCode(send(impatient, transfer(unknown, 10_000, "SLOW unknown"))));
        assertEquals("UNKNOWN", row(unknown).get("state"));
        assertEquals("E901", Telegram.rspCode(send(other, transfer(unknown, 10_000, "SLOW unknown"))));
        Await.until("the core applied the one POST", Duration.ofSeconds(10), () -> coreView.inquiryStatus(unknown) == 200);
        assertEquals(1, coreView.calls(unknown));
    }

    @Test
    void failedOnOneRelayIsSentAgainByTheOtherWithTheSameGuid() throws Exception {
        RelayUnderTest cutOff = relay("http://127.0.0.1:" + Ports.free());
        RelayUnderTest connected = relay(core.url());
        String guid = newGuid();
        assertEquals("E902", Telegram.rspCode(send(cutOff, transfer(guid))));
        assertEquals("FAILED", row(guid).get("state"));
        assertEquals(0, coreView.calls(guid));
        assertEquals("0000", Telegram.rspCode(send(connected, transfer(guid))));
        Map<String, Object> row = row(guid);
        assertEquals("DONE", row.get("state"));
        assertEquals(2, row.get("attempts"));
        assertEquals(1, coreView.calls(guid));
    }

    @Test
    void relaysStartingTogetherOnAnEmptyDatabaseApplyTheSchemaOnce() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            for (int round = 0; round < 3; round++) {
                ledger = Postgres.shared().newLedger();
                CountDownLatch go = new CountDownLatch(1);
                List<Future<RelayUnderTest>> starting = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    // a name each: the relays of one JVM would otherwise clash on their Quartz scheduler's JMX name
                    String name = "relay-" + i;
                    starting.add(pool.submit((Callable<RelayUnderTest>) () -> {
                        go.await();
                        return RelayUnderTest.onLedger(ledger, core.url()).with("camel.main.name", name).start();
                    }));
                }
                go.countDown();
                for (Future<RelayUnderTest> started : starting) {
                    relays.add(started.get(60, TimeUnit.SECONDS));
                }
                for (RelayUnderTest relay : relays) {
                    assertEquals("0000", Telegram.rspCode(send(relay, transfer(newGuid()))));
                }
                relays.forEach(RelayUnderTest::close);
                relays.clear();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aLedgerOutageIsE902WithNoCoreCallAndServiceResumesWithoutARestart() throws Exception {
        try (Postgres own = Postgres.start()) {
            ledger = own.newLedger();
            RelayUnderTest a = relay(core.url());
            RelayUnderTest b = relay(core.url());
            Map<String, String> answered = new ConcurrentHashMap<>();
            AtomicBoolean stop = new AtomicBoolean();
            ExecutorService pool = Executors.newFixedThreadPool(8);
            List<Future<?>> senders = new ArrayList<>();
            try {
                for (int i = 0; i < 8; i++) {
                    RelayUnderTest target = i % 2 == 0 ? a : b;
                    senders.add(pool.submit(() -> {
                        try (Channel channel = Channel.open(target.port)) {
                            while (!stop.get()) {
                                String guid = newGuid();
                                answered.put(guid, Telegram.rspCode(channel.send(transfer(guid))));
                            }
                        }
                        return null;
                    }));
                }
                Await.until("transfers answered before the outage", Duration.ofSeconds(20), () -> answered.size() >= 100);
                own.stopServer();
                // while the ledger is down: E902 within seconds, with no core call
                long calls = coreView.calls();
                String guid = newGuid();
                long asked = System.nanoTime();
                assertEquals("E902", Telegram.rspCode(send(a, transfer(guid))));
                assertTrue(System.nanoTime() - asked < TimeUnit.SECONDS.toNanos(10), "E902 took over 10 s");
                assertEquals(0, coreView.calls(guid));
                // a 503 from /health at once, not after a hang
                long probed = System.nanoTime();
                a.admin().json("/health", 503);
                assertTrue(System.nanoTime() - probed < TimeUnit.SECONDS.toNanos(5), "/health took over 5 s");
                own.startServer();
                int before = answered.size();
                Await.until("transfers answered again after the restart", Duration.ofSeconds(30), () -> {
                    String again = newGuid();
                    return Telegram.rspCode(send(b, transfer(again))).equals("0000");
                });
                Await.until("the load is served again", Duration.ofSeconds(30), () -> answered.size() >= before + 100);
                assertTrue(coreView.calls() >= calls);
            } finally {
                stop.set(true);
                for (Future<?> sender : senders) {
                    try {
                        sender.get(30, TimeUnit.SECONDS);
                    } catch (Exception e) {
                        // a sender's connection cut by a reply it could not get is fine here
                    }
                }
                pool.shutdownNow();
            }
            // no duplicate, no lost claim: every 0000 reached the core once, and has its DONE row
            Set<String> done = new TreeSet<>(LedgerFile.at(ledger).guids("state = 'DONE'"));
            for (Map.Entry<String, String> reply : answered.entrySet()) {
                long posts = coreView.calls(reply.getKey());
                assertTrue(posts <= 1, reply.getKey() + " reached the core " + posts + " times");
                if (reply.getValue().equals("0000")) {
                    assertEquals(1, posts, reply.getKey());
                    assertTrue(done.contains(reply.getKey()) || row(reply.getKey()) != null, reply.getKey() + " has no row");
                }
                if (reply.getValue().equals("E902")) {
                    assertEquals(0, posts, reply.getKey() + " was E902 but reached the core");
                }
            }
            relays.forEach(RelayUnderTest::close);
            relays.clear();
        }
    }

    @Test
    void theLedgerAndOneShotCommandsTakeThePostgresqlUrl() throws Exception {
        RelayUnderTest a = relay(core.url());
        String guid = newGuid();
        assertEquals("0000", Telegram.rspCode(send(a, transfer(guid))));
        String url = ledger.substring(0, ledger.indexOf('?'));
        OneShot show = OneShot.run("ledger", "show", guid, "--db", url, "--db-user", "postgres");
        assertEquals(0, show.exitCode, show.toString());
        assertTrue(show.out.stream().anyMatch(l -> l.matches("state\\s+DONE")), show.toString());
        OneShot stats = OneShot.run("ledger", "stats", "--db", ledger);
        assertEquals(0, stats.exitCode, stats.toString());
        assertTrue(stats.out.stream().anyMatch(l -> l.matches("DONE\\s+1\\s+.*")), stats.toString());
        OneShot resolve = OneShot.run("resolve", "--db", url, "--db-user", "postgres", "--core", core.url(), "--min-age", "1");
        assertEquals(0, resolve.exitCode, resolve.toString());
        assertEquals("resolve: 0 done, 0 failed, 0 kept", resolve.summary());
        OneShot purge = OneShot.run("purge", "--db", ledger, "--days", "7");
        assertEquals(0, purge.exitCode, purge.toString());
        assertTrue(purge.summary().matches("purge: 0 deleted in 1 batch, \\d+\\.\\d s, \\d+\\.\\d s of it paused for other writers; 0 history rows past 90 days"), purge.summary());
        // a database that is not there: one line naming it, without its password
        OneShot missing = OneShot.run("ledger", "stats", "--db", url.replace("ledger_", "nothing_") + "?user=postgres&password=s3cret");
        assertEquals(2, missing.exitCode, missing.toString());
        assertEquals(1, missing.err.size(), missing.toString());
        assertTrue(missing.err.get(0).startsWith("idempotent-relay: ledger stats: cannot read ledger jdbc:postgresql:"), missing.toString());
        assertTrue(!missing.err.get(0).contains("s3cret"), missing.toString());
    }

    @Test
    void eachRelayNamesItselfInTheHistoryRowsItWrote() throws Exception {
        RelayUnderTest a = RelayUnderTest.onLedger(ledger, core.url()).with("relay.name", "relay-a").start();
        relays.add(a);
        RelayUnderTest b = RelayUnderTest.onLedger(ledger, core.url()).with("relay.name", "relay-b").start();
        relays.add(b);
        String viaA = newGuid();
        String viaB = newGuid();
        assertEquals("0000", Telegram.rspCode(send(a, transfer(viaA))));
        assertEquals("0000", Telegram.rspCode(send(b, transfer(viaB))));
        // a resend of A's transfer to B is answered from the ledger: B writes nothing
        assertEquals("0000", Telegram.rspCode(send(b, transfer(viaA))));
        LedgerFile rows = LedgerFile.at(ledger);
        assertEquals(List.of("relay-a", "relay-a"), rows.strings("SELECT relay FROM tx_history WHERE guid = '" + viaA + "' ORDER BY id"));
        assertEquals(List.of("relay-b", "relay-b"), rows.strings("SELECT relay FROM tx_history WHERE guid = '" + viaB + "' ORDER BY id"));
        assertEquals(List.of("SENT", "DONE"), rows.strings("SELECT to_state FROM tx_history WHERE guid = '" + viaB + "' ORDER BY id"));
    }
}
