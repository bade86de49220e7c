package dev.idempotentrelay;

import static dev.idempotentrelay.support.Refusal.assertRefusedStarting;
import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.support.AdminClient;
import dev.idempotentrelay.support.Await;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.CoreClient;
import dev.idempotentrelay.support.JarProcess;
import dev.idempotentrelay.support.LedgerFile;
import dev.idempotentrelay.support.Ports;
import dev.idempotentrelay.support.Postgres;
import dev.idempotentrelay.telegram.Telegram;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ledger survives its database (SPEC section 9, a replicated ledger): a real PostgreSQL primary and streaming
 * standby (Debian's binaries: initdb, pg_basebackup -R, pg_ctl promote), two packaged relays on the multi-host URL,
 * new GUIDs and resends through both, the primary's postmaster killed with SIGKILL, the standby promoted; then every
 * GUID without a final reply resent until final. With synchronous replication no GUID reaches the core twice, every
 * 0000 has its DONE row with the same bytes on the new primary, every core call has its row, and the relays serve
 * again without a restart. With asynchronous replication a relay does not start unless told to, and then says so.
 * <p>
 * The test prints how long after the new primary took its first write each relay answered 0000 again (the figures
 * of the failover in the operators' documentation); it asserts no time.
 */
class LedgerFailoverIT {

    private static final Duration START = Duration.ofSeconds(60);
    private static final int CHANNELS = 8;
    /** The least time from the primary's death to the promotion of the standby. */
    private static final Duration FAILOVER_DELAY = Duration.ofSeconds(3);

    @TempDir
    Path dir;

    private static String multiHost(Postgres primary, Postgres standby) {
        return "jdbc:postgresql://127.0.0.1:" + primary.port + ",127.0.0.1:" + standby.port + "/ledger?targetServerType=primary&user=postgres";
    }

    private static String[] relay(String ledger, String core, int port, int adminPort, String... more) {
        List<String> args = new ArrayList<>(List.of("run", "--db", ledger, "--port", Integer.toString(port), "--core", core,
                "--admin-port", Integer.toString(adminPort), "--read-timeout-ms", "1000", "--every", "1", "--min-age", "1",
                "--sent-stale-after", "2"));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    @Test
    void aFailoverUnderLoadOnSynchronousReplicationSendsNoGuidTwiceLosesNoReplyAndTheRelaysServeAgain() throws Exception {
        // synchronous_standby_names as a -c option of the primary: not in its postgresql.conf, so the promoted
        // standby does not inherit it (with it, every commit of the new primary would wait for a standby: see
        // CommitWaitingForAStandbyTest)
        try (Postgres primary = Postgres.start(List.of("synchronous_standby_names=standby"));
                Postgres standby = primary.standby("standby");
                CoreSimulator core = CoreSimulator.start(0, 1_000)) {
            primary.execute("CREATE DATABASE ledger");
            LedgerFile.migrated("jdbc:postgresql://127.0.0.1:" + primary.port + "/ledger?user=postgres");
            String ledger = multiHost(primary, standby);
            String newPrimary = "jdbc:postgresql://127.0.0.1:" + standby.port + "/ledger?user=postgres";
            CoreClient coreView = new CoreClient(core.url());
            int[] ports = {Ports.free(), Ports.free()};
            int[] adminPorts = {Ports.free(), Ports.free()};
            // one after the other: on a busy machine two starting JVMs can hold up each other's first ledger connection
            // past relay.db.connect-wait-ms, and a relay that gets none in that time does not start
            try (JarProcess a = JarProcess.in(dir).env("RELAY_DB_CHECK_EVERY", "1").start(relay(ledger, core.url(), ports[0], adminPorts[0]))) {
                a.awaitLine("listening on port " + ports[0], START);
                try (JarProcess b = JarProcess.in(dir).env("RELAY_DB_CHECK_EVERY", "1").start(relay(ledger, core.url(), ports[1], adminPorts[1]))) {
                    b.awaitLine("listening on port " + ports[1], START);
                    AdminClient[] admins = {new AdminClient("http://127.0.0.1:" + adminPorts[0]), new AdminClient("http://127.0.0.1:" + adminPorts[1])};
                    for (AdminClient admin : admins) {
                        assertEquals("SYNCHRONOUS", admin.json("/health", 200).get("replication").get("status").asText());
                    }

                    Load load = new Load(ports);
                    load.start();
                    Await.until("both relays answered some", Duration.ofSeconds(60), () -> load.replies() >= 300);
                    long killed = System.nanoTime();
                    primary.killPostmaster();
                    // the failover tool (here the test) promotes once the relays see the primary gone, and no sooner than
                    // FAILOVER_DELAY after the kill: the time a tool or a person takes to decide (3 s in the runs)
                    for (AdminClient admin : admins) {
                        Await.until("the relay reports its ledger down", Duration.ofSeconds(30),
                                () -> admin.get("/health").statusCode() == 503);
                    }
                    long decided = killed + FAILOVER_DELAY.toNanos() - System.nanoTime();
                    if (decided > 0) {
                        TimeUnit.NANOSECONDS.sleep(decided);
                    }
                    long promoting = System.nanoTime();
                    ExecutorService promotion = Executors.newSingleThreadExecutor();
                    Future<?> promoted = promotion.submit(() -> {
                        standby.promote();
                        return null;
                    });
                    long writable = firstWrite(newPrimary);
                    promoted.get(60, TimeUnit.SECONDS);
                    promotion.shutdown();
                    Await.until("both relays answered 0000 after the promotion", Duration.ofSeconds(60),
                            () -> load.firstAcceptedAfter(0, writable) != null && load.firstAcceptedAfter(1, writable) != null);
                    int atPromotion = load.replies();
                    Await.until("the load goes on", Duration.ofSeconds(60), () -> load.replies() >= atPromotion + 200);
                    load.stop();

                    // every GUID without a final reply resent until final (the timed work settles the rows the failover
                    // left SENT: stale, UNKNOWN, inquiry, then DONE, or FAILED and sent again)
                    load.settle(Duration.ofSeconds(120));

                    // no GUID at the core twice; every core call has its row on the new primary; every 0000 a channel got
                    // has its DONE row there with the same bytes; every GUID final
                    Map<String, Long> calls = coreView.callsByGuid();
                    Map<String, byte[]> rows = doneReplies(newPrimary);
                    for (Map.Entry<String, Long> call : calls.entrySet()) {
                        assertEquals(1L, call.getValue(), call.getKey() + " reached the core " + call.getValue() + " times");
                        assertTrue(rows.containsKey(call.getKey()), call.getKey() + " reached the core and has no DONE row on the new primary");
                    }
                    for (Map.Entry<String, byte[]> accepted : load.accepted.entrySet()) {
                        assertArrayEquals(accepted.getValue(), rows.get(accepted.getKey()), accepted.getKey() + ": the 0000 and its row");
                        assertEquals(1L, calls.get(accepted.getKey()), accepted.getKey());
                    }
                    assertEquals(load.requests.keySet(), load.accepted.keySet(), "every GUID final");
                    assertTrue(load.mismatches.isEmpty(), "resends answered other bytes than the first 0000: " + load.mismatches);
                    assertTrue(a.isAlive() && b.isAlive(), "the relays were not restarted");
                    // the new primary has no standby: a single server, which each relay's check sees
                    for (AdminClient admin : admins) {
                        Await.until("the relay sees no standby", Duration.ofSeconds(30),
                                () -> admin.json("/health", 200).get("replication").get("status").asText().equals("NO_STANDBY"));
                    }

                    System.out.printf("ledger failover: %d GUIDs (%d resends) through 2 relays, %d 0000, replies by code %s%n",
                            load.requests.size(), load.resends.get(), load.accepted.size(), load.codes);
                    System.out.printf("ledger failover: kill -9 of the primary to promote %d ms; promote to the first write on the new primary %d ms%n",
                            ms(promoting - killed), ms(writable - promoting));
                    for (int relay = 0; relay < 2; relay++) {
                        System.out.printf("ledger failover: relay %s answered 0000 again %d ms after the new primary's first write%n",
                                relay == 0 ? "A" : "B", ms(load.firstAcceptedAfter(relay, writable) - writable));
                        (relay == 0 ? a : b).output().stream().filter(l -> l.contains("PrimaryConnections"))
                                .forEach(l -> System.out.println("ledger failover: relay log: " + l));
                    }
                }
            }
        }
    }

    @Test
    void onAsynchronousReplicationARelayDoesNotStartUnlessToldAndThenSaysSoUntilItIsSynchronous() throws Exception {
        try (Postgres primary = Postgres.start(); Postgres standby = primary.standby("standby");
                CoreSimulator core = CoreSimulator.start(0, 1_000)) {
            primary.execute("CREATE DATABASE ledger");
            LedgerFile.migrated("jdbc:postgresql://127.0.0.1:" + primary.port + "/ledger?user=postgres");
            String ledger = multiHost(primary, standby);
            int port = Ports.free();
            int adminPort = Ports.free();
            String line = assertRefusedStarting("idempotent-relay: run: the ledger jdbc:postgresql://127.0.0.1:" + primary.port,
                    JarProcess.run(dir, relay(ledger, core.url(), port, adminPort, "--no-jobs")));
            assertTrue(line.contains("has asynchronous standbys and no synchronous one"), line);
            assertTrue(line.contains("a claim it acknowledges can be lost at a failover, and its transfer sent to the core a second time"), line);
            assertTrue(line.contains("--allow-async-replication"), line);

            try (JarProcess relay = JarProcess.in(dir).env("RELAY_DB_CHECK_EVERY", "1")
                    .start(relay(ledger, core.url(), port, adminPort, "--no-jobs", "--allow-async-replication"))) {
                relay.awaitLine("listening on port " + port, START);
                String warning = relay.output().stream().filter(l -> l.contains(" WARN ") && l.contains("has asynchronous standbys"))
                        .findFirst().orElse(null);
                assertNotNull(warning, relay.output().toString());
                assertTrue(warning.contains("started anyway"), warning);
                AdminClient admin = new AdminClient("http://127.0.0.1:" + adminPort);
                JsonNode replication = admin.json("/health", 200).get("replication");
                assertEquals("ASYNCHRONOUS", replication.get("status").asText(), replication.toString());
                assertTrue(replication.get("allowed").asBoolean(), replication.toString());
                assertEquals(1.0, admin.metric("relay_ledger_unsafe_replication"));
                try (Channel channel = Channel.open(port)) {
                    assertEquals("0000", Telegram.rspCode(channel.send(transfer(newGuid()))));
                }
                // until the replication is synchronous
                primary.set("synchronous_standby_names", "standby");
                Await.until("the metric is 0", Duration.ofSeconds(30), () -> admin.metric("relay_ledger_unsafe_replication") == 0.0);
                assertEquals("SYNCHRONOUS", admin.json("/health", 200).get("replication").get("status").asText());
            }
        }
    }

    /** Polls the new primary until it takes a write (a transaction id assigned and committed); returns when, in nanoTime. */
    private static long firstWrite(String url) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
                s.execute("SELECT txid_current()");
                return System.nanoTime();
            } catch (Exception e) {
                // still a standby, or promoting
            }
            Thread.sleep(5);
        }
        throw new AssertionError("the promoted standby took no write within 60 s");
    }

    /** The DONE rows of the ledger at this URL: GUID and stored reply. */
    private static Map<String, byte[]> doneReplies(String url) throws Exception {
        Map<String, byte[]> rows = new HashMap<>();
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT guid, response FROM tx WHERE state = 'DONE'")) {
            while (rs.next()) {
                rows.put(rs.getString(1), rs.getBytes(2));
            }
        }
        return rows;
    }

    private static long ms(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    /**
     * Channels sending through both relays, half each: 70% new GUIDs, 30% resends of a GUID sent before. Keeps every
     * request, the first 0000 of each GUID (a later 0000 of it must be the same bytes), and when each relay answered 0000.
     */
    private static final class Load {
        final int[] ports;
        final Map<String, byte[]> requests = new ConcurrentHashMap<>();
        final List<String> guids = new CopyOnWriteArrayList<>();
        final Map<String, byte[]> accepted = new ConcurrentHashMap<>();
        final Map<String, Integer> codes = new ConcurrentHashMap<>();
        final List<String> mismatches = new CopyOnWriteArrayList<>();
        final java.util.concurrent.atomic.AtomicInteger resends = new java.util.concurrent.atomic.AtomicInteger();
        final List<ConcurrentLinkedQueue<Long>> acceptedAt = List.of(new ConcurrentLinkedQueue<>(), new ConcurrentLinkedQueue<>());
        private final AtomicBoolean stop = new AtomicBoolean();
        private final ExecutorService pool = Executors.newFixedThreadPool(CHANNELS);
        private final List<Future<?>> senders = new ArrayList<>();
        private final java.util.concurrent.atomic.AtomicInteger replies = new java.util.concurrent.atomic.AtomicInteger();

        Load(int[] ports) {
            this.ports = ports;
        }

        void start() {
            for (int i = 0; i < CHANNELS; i++) {
                int relay = i % 2;
                senders.add(pool.submit(() -> {
                    Channel channel = null;
                    try {
                        while (!stop.get()) {
                            if (channel == null) {
                                channel = Channel.open(ports[relay]);
                            }
                            String guid;
                            if (guids.size() > 10 && ThreadLocalRandom.current().nextInt(10) < 3) {
                                guid = guids.get(ThreadLocalRandom.current().nextInt(guids.size()));
                                resends.incrementAndGet();
                            } else {
                                guid = newGuid();
                                requests.put(guid, transfer(guid));
                                guids.add(guid);
                            }
                            try {
                                record(relay, guid, channel.send(requests.get(guid)));
                            } catch (IOException e) {
                                channel.close();
                                channel = null;
                            }
                        }
                    } finally {
                        if (channel != null) {
                            channel.close();
                        }
                    }
                    return null;
                }));
            }
        }

        void record(int relay, String guid, byte[] reply) {
            String code = Telegram.rspCode(reply);
            codes.merge(code, 1, Integer::sum);
            replies.incrementAndGet();
            if (code.equals("0000")) {
                acceptedAt.get(relay).add(System.nanoTime());
                byte[] first = accepted.putIfAbsent(guid, reply);
                if (first != null && !java.util.Arrays.equals(first, reply)) {
                    mismatches.add(guid);
                }
            }
        }

        int replies() {
            return replies.get();
        }

        /** When the relay first answered 0000 after {@code nanos}, or null. */
        Long firstAcceptedAfter(int relay, long nanos) {
            return acceptedAt.get(relay).stream().filter(t -> t >= nanos).min(Long::compare).orElse(null);
        }

        void stop() throws Exception {
            stop.set(true);
            for (Future<?> sender : senders) {
                sender.get(60, TimeUnit.SECONDS);
            }
            pool.shutdown();
        }

        /** Resends every GUID without a 0000 until it has one, to either relay. */
        void settle(Duration limit) throws Exception {
            int[] turn = {0};
            Await.until("every GUID has a final reply", limit, () -> {
                for (String guid : requests.keySet()) {
                    if (!accepted.containsKey(guid)) {
                        int relay = turn[0]++ % 2;
                        try (Channel channel = Channel.open(ports[relay])) {
                            record(relay, guid, channel.send(requests.get(guid)));
                        }
                    }
                }
                return accepted.size() == requests.size();
            });
        }
    }
}
