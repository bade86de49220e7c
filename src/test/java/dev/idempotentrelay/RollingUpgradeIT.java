package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.support.Await;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.CoreClient;
import dev.idempotentrelay.support.JarProcess;
import dev.idempotentrelay.support.LedgerFile;
import dev.idempotentrelay.support.Ports;
import dev.idempotentrelay.support.Postgres;
import dev.idempotentrelay.support.Resources;
import dev.idempotentrelay.telegram.Telegram;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rolling upgrade on a real PostgreSQL server with the previous release's own jar (the commit in .previous-release,
 * built by scripts/previous-release.sh into the path of the system property previous.release.jar), as SPEC section 5
 * promises: each migration only adds to what the previous release reads and writes, so its relays keep running while
 * the next release's relays start.
 * <p>
 * A relay of the previous release makes its ledger on an empty database, as it did (its schema file at every start),
 * and serves channels; this build's {@code migrate} runs on that ledger meanwhile; then a relay of this build starts
 * on it, and each relay answers a resend of the other's GUIDs with the other's reply, byte for byte, the core called
 * once per GUID; the old relay, stopped and started again as in a rolling deploy (its schema file applied once more),
 * starts on the migrated ledger and serves, and each GUID's history is its claim and its DONE row, once each.
 */
class RollingUpgradeIT {

    private static final Duration START = Duration.ofSeconds(60);
    private static final Duration SERVE = Duration.ofSeconds(60);
    private static final int CHANNELS = 4;
    /** The version that a ledger of the previous release (made before versioned migrations) matches. */
    private static final String PREVIOUS_VERSION = "4";
    /** This build's version: the number of its last migration. */
    private static final String VERSION = "6";
    private static final String PREVIOUS = "previous-release";
    private static final String CURRENT = "this-build";

    @TempDir
    Path dir;

    @RegisterExtension
    final Resources running = new Resources();

    @Test
    void relaysOfThePreviousReleaseServeWhileThisBuildMigratesTheirLedgerAndStartsBesideThem() throws Exception {
        Path previousJar = previousRelease();
        Path previousDir = Files.createDirectory(dir.resolve(PREVIOUS));
        Path currentDir = Files.createDirectory(dir.resolve(CURRENT));
        Postgres server = Postgres.shared();
        String withUser = server.newDatabase();
        // the URL as an operator writes it, the user given apart
        String db = withUser.substring(0, withUser.indexOf('?'));
        LedgerFile ledger = LedgerFile.at(withUser);
        CoreSimulator core = running.keep(CoreSimulator.start(0, 1_000));
        CoreClient coreView = new CoreClient(core.url());
        Transfers transfers = new Transfers();
        int previousPort = Ports.free();
        int previousAdminPort = Ports.free();
        int currentPort = Ports.free();
        String[] previousRun = run(db, core.url(), previousPort, previousAdminPort);

        // the previous release on an empty database: it makes its ledger itself, before versioned migrations
        assertEquals(List.of(), tables(ledger));
        JarProcess previous = running.keep(JarProcess.in(previousDir).jar(previousJar).env("RELAY_NAME", PREVIOUS).start(previousRun));
        previous.awaitLine("listening on port " + previousPort, START);
        assertTrue(tables(ledger).containsAll(List.of("ledger_probe", "tx", "tx_history")), tables(ledger).toString());
        assertFalse(tables(ledger).contains("flyway_schema_history"), tables(ledger).toString());

        // channels send to it before, while and after this build's migrate runs on its ledger
        Load onPrevious = running.keep(new Load(PREVIOUS, previousPort, transfers, "before migrate"));
        onPrevious.awaitReplies(100);
        onPrevious.phase("while migrate runs");
        JarProcess migrate = JarProcess.run(currentDir, "migrate", "--db", db, "--db-user", "postgres");
        onPrevious.phase("after migrate");
        onPrevious.awaitReplies(onPrevious.replies() + 100);
        onPrevious.stop();
        assertEquals(0, migrate.exitCode(), migrate.output() + " " + migrate.errors());
        assertTrue(migrate.output().contains("migrate: recorded the ledger made before versioned migrations at version " + PREVIOUS_VERSION),
                migrate.output().toString());
        assertTrue(migrate.output().stream().anyMatch(l -> l.startsWith("migrate: applied version " + VERSION + ": ")), migrate.output().toString());
        assertTrue(migrate.output().get(migrate.output().size() - 1).endsWith(" is at version " + VERSION + " (2 applied)"),
                migrate.output().toString());
        assertEquals(List.of(PREVIOUS_VERSION + " BASELINE", "5 SQL", VERSION + " SQL"), versions(ledger));
        System.out.println("rolling upgrade: the previous release's relay answered, by when the transfer was sent: " + onPrevious.phases);
        for (String phase : List.of("before migrate", "while migrate runs", "after migrate")) {
            assertTrue(onPrevious.phases.containsKey(phase), "no transfer was answered " + phase + ": " + onPrevious.phases);
        }
        assertEquals(List.of(), transfers.failures, "every transfer to the previous release's relay answered 0000");

        // a relay of this build on the migrated ledger, beside the old one
        JarProcess current = running.keep(JarProcess.in(currentDir).env("RELAY_NAME", CURRENT)
                .start(run(db, core.url(), currentPort, Ports.free())));
        current.awaitLine("listening on port " + currentPort, START);
        assertSameReplies(transfers, onPrevious.guids, currentPort, "a resend to this build's relay of a GUID the previous release's relay did");
        Load onCurrent = running.keep(new Load(CURRENT, currentPort, transfers, "beside the old relay"));
        onCurrent.awaitReplies(100);
        onCurrent.stop();
        assertSameReplies(transfers, onCurrent.guids, previousPort, "a resend to the previous release's relay of a GUID this build's relay did");
        assertCoreCalledOncePerGuid(coreView, transfers);
        assertEquals(List.of(), transfers.failures, "every transfer to this build's relay answered 0000");

        // the old relay stopped and started again, as in a rolling deploy, while the channels send to the new one: its
        // schema file, applied again at its start, leaves the migrated ledger as it was
        List<String> migrated = schema(ledger);
        Load whileRestarting = running.keep(new Load(CURRENT, currentPort, transfers, "while the old relay restarts"));
        whileRestarting.awaitReplies(50);
        int stopped = previous.terminate();
        assertTrue(stopped == 0 || stopped == 143, "the previous release's relay stopped on SIGTERM, exit " + stopped);
        JarProcess restarted = running.keep(JarProcess.in(previousDir).jar(previousJar).env("RELAY_NAME", PREVIOUS).start(previousRun));
        restarted.awaitLine("listening on port " + previousPort, START);
        whileRestarting.awaitReplies(whileRestarting.replies() + 50);
        whileRestarting.stop();
        assertEquals(migrated, schema(ledger), "the ledger's tables, columns, indexes, functions and triggers after the old relay's restart");
        assertEquals(List.of(PREVIOUS_VERSION + " BASELINE", "5 SQL", VERSION + " SQL"), versions(ledger));
        Load onRestarted = running.keep(new Load(PREVIOUS, previousPort, transfers, "after its restart"));
        onRestarted.awaitReplies(50);
        onRestarted.stop();
        assertSameReplies(transfers, whileRestarting.guids, previousPort, "a resend to the restarted old relay of a GUID this build's relay did");
        assertSameReplies(transfers, onRestarted.guids, currentPort, "a resend to this build's relay of a GUID the restarted old relay did");
        assertEquals(List.of(), transfers.failures, "every transfer answered 0000");
        assertCoreCalledOncePerGuid(coreView, transfers);

        // one set of history triggers: each GUID's history is its claim and its DONE row, by the relay that served it
        assertEquals(List.of("tx_history_key_of_older_row", "tx_history_of_deletes", "tx_history_write"),
                ledger.strings("SELECT tgname FROM pg_trigger WHERE tgrelid = 'tx'::regclass AND NOT tgisinternal ORDER BY tgname"));
        Map<String, String> histories = new TreeMap<>();
        for (String line : ledger.strings("SELECT guid || ' ' || string_agg(concat_ws(' ', coalesce(from_state, '-'), to_state, relay, cause),"
                + " ', ' ORDER BY id) FROM tx_history GROUP BY guid")) {
            histories.put(line.substring(0, 32), line.substring(33));
        }
        assertEquals(new TreeMap<>(transfers.relays).keySet(), histories.keySet(), "the GUIDs with a history");
        List<String> wrong = new ArrayList<>();
        transfers.relays.forEach((guid, relay) -> {
            String expected = "- SENT " + relay + " channel, SENT DONE " + relay + " channel";
            if (!expected.equals(histories.get(guid))) {
                wrong.add(guid + ": " + histories.get(guid) + " (expected " + expected + ")");
            }
        });
        assertEquals(List.of(), wrong, "each GUID's history: its claim and its DONE row, once each");
        System.out.printf("rolling upgrade: %d GUIDs, %d through the previous release's relay, each resent to the other relay%n",
                transfers.relays.size(), transfers.relays.values().stream().filter(PREVIOUS::equals).count());
    }

    /** The previous release's jar, or a failure that says how to build it. */
    private static Path previousRelease() {
        String jar = System.getProperty("previous.release.jar");
        assertNotNull(jar, "the system property previous.release.jar (the previous release's jar) is not set: mvn verify sets it"
                + " and builds the jar by scripts/previous-release.sh");
        Path path = Path.of(jar);
        assertTrue(Files.isRegularFile(path), "the previous release's jar " + path + " is missing: scripts/previous-release.sh builds it"
                + " (mvn verify runs it before the integration tests)");
        return path;
    }

    private static String[] run(String db, String core, int port, int adminPort) {
        return new String[] {"run", "--db", db, "--db-user", "postgres", "--core", core, "--port", Integer.toString(port),
                "--admin-port", Integer.toString(adminPort), "--no-jobs"};
    }

    /** Flyway's record of the ledger's versions: each version and how it got there, and "failed" where it did not. */
    private static List<String> versions(LedgerFile ledger) throws Exception {
        return ledger.strings("SELECT concat_ws(' ', version, type, CASE WHEN NOT success THEN 'failed' END) FROM flyway_schema_history"
                + " ORDER BY installed_rank");
    }

    private static List<String> tables(LedgerFile ledger) throws Exception {
        return ledger.strings("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename");
    }

    /** The ledger's schema as text: each column, index, function (its definition's digest) and trigger. */
    private static List<String> schema(LedgerFile ledger) throws Exception {
        List<String> schema = new ArrayList<>();
        schema.addAll(ledger.strings("SELECT concat_ws(' ', 'column', table_name, column_name, data_type, is_nullable, column_default)"
                + " FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, column_name"));
        schema.addAll(ledger.strings("SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY indexname"));
        schema.addAll(ledger.strings("SELECT 'function ' || p.proname || ' ' || md5(pg_get_functiondef(p.oid)) FROM pg_proc p"
                + " JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = current_schema() ORDER BY p.proname"));
        schema.addAll(ledger.strings("SELECT 'trigger ' || pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal ORDER BY tgname"));
        return schema;
    }

    /** Resends each GUID's request to the relay on {@code port}: the reply must be the first one's, byte for byte. */
    private static void assertSameReplies(Transfers transfers, Collection<String> guids, int port, String what) throws IOException {
        List<String> different = new ArrayList<>();
        try (Channel channel = Channel.open(port)) {
            for (String guid : guids) {
                byte[] reply = channel.send(transfers.requests.get(guid));
                if (!Arrays.equals(transfers.replies.get(guid), reply)) {
                    different.add(guid + ": " + Telegram.rspCode(reply));
                }
            }
        }
        assertTrue(!guids.isEmpty(), what + ": no GUID");
        assertEquals(List.of(), different, what + " is answered as the first time, byte for byte (" + guids.size() + " GUIDs)");
    }

    private static void assertCoreCalledOncePerGuid(CoreClient core, Transfers transfers) throws Exception {
        Map<String, Long> calls = core.callsByGuid();
        assertEquals(new TreeMap<>(transfers.requests).keySet(), new TreeMap<>(calls).keySet(), "the GUIDs the core was called for");
        List<String> more = calls.entrySet().stream().filter(e -> e.getValue() != 1).map(e -> e.getKey() + ": " + e.getValue()).toList();
        assertEquals(List.of(), more, "GUIDs the core was called for more than once");
        assertEquals(transfers.requests.size(), core.calls(), "the core's calls in all");
    }

    /** Every transfer the test sent: its request, its first reply, the relay that answered it, and each reply not 0000. */
    private static final class Transfers {
        final Map<String, byte[]> requests = new ConcurrentHashMap<>();
        final Map<String, byte[]> replies = new ConcurrentHashMap<>();
        final Map<String, String> relays = new ConcurrentHashMap<>();
        final List<String> failures = new CopyOnWriteArrayList<>();
    }

    /**
     * {@link #CHANNELS} channels sending new GUIDs to one relay, each on its connection, one transfer after another,
     * until stopped; the replies are counted by the phase of the test in which their transfer was sent.
     */
    private static final class Load implements AutoCloseable {
        final List<String> guids = new CopyOnWriteArrayList<>();
        final Map<String, Integer> phases = new ConcurrentHashMap<>();
        private final AtomicInteger replies = new AtomicInteger();
        private final AtomicBoolean stop = new AtomicBoolean();
        private final ExecutorService pool = Executors.newFixedThreadPool(CHANNELS);
        private final List<Future<?>> senders = new ArrayList<>();
        private volatile String phase;

        Load(String relay, int port, Transfers transfers, String phase) {
            this.phase = phase;
            for (int i = 0; i < CHANNELS; i++) {
                senders.add(pool.submit(() -> {
                    try (Channel channel = Channel.open(port)) {
                        while (!stop.get()) {
                            String guid = newGuid();
                            String sentIn = this.phase;
                            byte[] request = transfer(guid);
                            transfers.requests.put(guid, request);
                            byte[] reply;
                            try {
                                reply = channel.send(request);
                            } catch (IOException e) {
                                transfers.failures.add(guid + " to " + relay + " " + sentIn + ": no reply (" + e.getMessage() + ")");
                                throw e;
                            }
                            String code = Telegram.rspCode(reply);
                            if (!code.equals("0000")) {
                                transfers.failures.add(guid + " to " + relay + " " + sentIn + ": " + code);
                            }
                            transfers.replies.put(guid, reply);
                            transfers.relays.put(guid, relay);
                            guids.add(guid);
                            phases.merge(sentIn, 1, Integer::sum);
                            replies.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
        }

        void phase(String phase) {
            this.phase = phase;
        }

        int replies() {
            return replies.get();
        }

        void awaitReplies(int n) throws Exception {
            Await.until(n + " replies", SERVE, () -> replies() >= n || senders.stream().anyMatch(Future::isDone));
            for (Future<?> sender : senders) {
                if (sender.isDone()) {
                    sender.get();
                }
            }
        }

        void stop() throws Exception {
            stop.set(true);
            for (Future<?> sender : senders) {
                sender.get(60, TimeUnit.SECONDS);
            }
            pool.shutdown();
        }

        @Override
        public void close() {
            stop.set(true);
            pool.shutdownNow();
        }
    }
}
