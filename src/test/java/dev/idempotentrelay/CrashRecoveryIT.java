package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.support.Await;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.ChannelThreadsLine;
import dev.idempotentrelay.support.CoreClient;
import dev.idempotentrelay.support.JarProcess;
import dev.idempotentrelay.support.LedgerFile;
import dev.idempotentrelay.support.Ports;
import dev.idempotentrelay.telegram.Telegram;
import dev.idempotentrelay.wire.ChannelTransport;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The packaged relay killed with SIGKILL in the middle of load, again and again, channels resending
 * what got no answer: afterwards nothing is lost, nothing reached the core twice, the ledger is intact.
 */
class CrashRecoveryIT {

    private static final int CYCLES = Integer.getInteger("crash.cycles", 5);
    private static final int CHANNELS = 16;
    private static final int ANSWERS_PER_CYCLE = 150;
    private static final String JAVA_JAR = "java -jar";
    private static final String LAUNCHER = "bin/idempotent-relay";

    @TempDir
    Path dir;

    /**
     * Started with {@code java -jar} on the JDK running the tests (an OS thread per connection below JDK 24), and
     * with the launcher, which picks the newest JDK it finds: there the transfers run on virtual threads.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {JAVA_JAR, LAUNCHER})
    void killMinus9DuringLoadRepeatedlyLosesNothingAndDebitsNothingTwice(String how) throws Exception {
        Map<String, byte[]> written = new ConcurrentHashMap<>();
        Set<String> unanswered = ConcurrentHashMap.newKeySet();
        LedgerFile ledger = new LedgerFile(dir.resolve("ledger.db"));
        int port = Ports.free();
        try (CoreSimulator core = CoreSimulator.start(0, 1_000)) {
            CoreClient coreView = new CoreClient(core.url());
            String[] run = {"run", "--port", Integer.toString(port), "--core", core.url(), "--db", "ledger.db", "--no-jobs"};
            Set<String> cutShort = new java.util.TreeSet<>();
            List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
            for (int cycle = 1; cycle <= CYCLES; cycle++) {
                Queue<String> resend = new ConcurrentLinkedQueue<>(unanswered);
                AtomicInteger answered = new AtomicInteger();
                AtomicBoolean stop = new AtomicBoolean();
                List<Thread> channels = new ArrayList<>();
                try (JarProcess relay = start(how, run)) {
                    relay.awaitLine("listening on port " + port, Duration.ofSeconds(60));
                    ChannelThreadsLine threads = ChannelThreadsLine.of(relay.output());
                    assertEquals(threads.jdk() >= ChannelThreadsLine.FIRST_VIRTUAL_JDK, threads.virtual(), threads.line());
                    if (ChannelTransport.epollMachine()) {
                        assertTrue(relay.output().stream().anyMatch(l -> l.contains("channel transport: epoll")),
                                "the jar's epoll library did not load: " + relay.output());
                    }
                    if (how.equals(LAUNCHER)) {
                        assumeTrue(threads.virtual(), "the launcher found no JDK with virtual threads: " + threads.line());
                    }
                    for (int c = 0; c < CHANNELS; c++) {
                        Thread channel = new Thread(() -> load(port, resend, written, unanswered, answered, stop));
                        channel.setUncaughtExceptionHandler((t, e) -> failures.add(e));
                        channel.start();
                        channels.add(channel);
                    }
                    Await.until("the relay answered " + ANSWERS_PER_CYCLE + " transfers in this cycle",
                            Duration.ofSeconds(60), () -> answered.get() >= ANSWERS_PER_CYCLE);
                    relay.kill();
                }
                stop.set(true);
                for (Thread channel : channels) {
                    channel.join(30_000);
                }
                cutShort.addAll(ledger.guids("state = 'SENT'"));
                assertEquals(List.of(), failures, "every answer a channel got was 0000 or E903");
                assertEquals("ok", ledger.queryString("PRAGMA integrity_check"), "after kill " + cycle);
                assertHistoryMatchesTheLedger(ledger, "after kill " + cycle);
            }

            // the calls that the kills cut short: resolve asks the core about every stale SENT, never resends one; the
            // shortest min-age and sent-stale-after it takes are 1 s, so it runs once the last claim is a second old
            Await.until("the last SENT or UNKNOWN row is a second old", Duration.ofSeconds(10), () -> ledger.queryLong(
                    "SELECT COUNT(*) FROM tx WHERE state IN ('SENT', 'UNKNOWN') AND updated_at > datetime('now', '-1 seconds')") == 0);
            JarProcess resolve = JarProcess.run(dir, "resolve", "--db", "ledger.db", "--core", core.url(),
                    "--min-age", "1", "--sent-stale-after", "1");
            assertEquals(0, resolve.exitCode(), resolve.errors().toString());
            assertEquals(0, ledger.queryLong("SELECT COUNT(*) FROM tx WHERE state IN ('SENT', 'UNKNOWN')"), resolve.output().toString());

            // the channels resend whatever never got a final answer
            try (JarProcess relay = start(how, run)) {
                relay.awaitLine("listening on port " + port, Duration.ofSeconds(60));
                try (Channel channel = Channel.open(port)) {
                    for (String guid : unanswered) {
                        assertEquals("0000", Telegram.rspCode(channel.send(written.get(guid))), guid);
                    }
                }
            }

            for (Map.Entry<String, byte[]> sent : written.entrySet()) {
                Map<String, Object> row = ledger.row(sent.getKey());
                assertNotNull(row, "every GUID sent has a row: " + sent.getKey());
                assertEquals("DONE", row.get("state"), sent.getKey());
                assertEquals(1, coreView.calls(sent.getKey()), "exactly one debit for " + sent.getKey());
            }
            assertEquals(written.size(), coreView.calls(), "the core saw no POST beyond one per GUID");
            assertEquals("ok", ledger.queryString("PRAGMA integrity_check"));
            assertHistoryMatchesTheLedger(ledger, "at the end");
            System.out.printf("crash recovery: %d kills, %d GUIDs, %d left SENT by the kills, %d resent after the last kill%n",
                    CYCLES, written.size(), cutShort.size(), unanswered.size());
            assertTrue(cutShort.size() > 0, "the kills hit calls in flight");
        }
    }

    /**
     * Whatever a kill cut short, no state change is without its history row and no history row without its change: each
     * GUID's history starts with its claim, each change starts from the state the one before ended in, and the last ends
     * in the row's state; no history names a GUID without a row (nothing was purged).
     */
    private static void assertHistoryMatchesTheLedger(LedgerFile ledger, String when) throws Exception {
        assertEquals(0, ledger.queryLong("SELECT COUNT(*) FROM tx WHERE NOT EXISTS (SELECT 1 FROM tx_history h WHERE h.guid = tx.guid)"),
                "rows without history " + when);
        assertEquals(0, ledger.queryLong("SELECT COUNT(*) FROM tx_history h WHERE NOT EXISTS (SELECT 1 FROM tx WHERE tx.guid = h.guid)"),
                "history without a row " + when);
        assertEquals(0, ledger.queryLong("SELECT COUNT(*) FROM tx JOIN tx_history h ON h.guid = tx.guid"
                + " WHERE h.id = (SELECT MAX(id) FROM tx_history WHERE guid = tx.guid) AND h.to_state <> tx.state"),
                "rows whose last history row is not their state " + when);
        assertEquals(0, ledger.queryLong("SELECT COUNT(*) FROM tx_history h WHERE h.from_state IS NOT"
                + " (SELECT p.to_state FROM tx_history p WHERE p.guid = h.guid AND p.id < h.id ORDER BY p.id DESC LIMIT 1)"),
                "history rows that do not start where the one before ended " + when);
        assertTrue(ledger.queryLong("SELECT COUNT(*) FROM tx_history") >= 2 * ledger.queryLong("SELECT COUNT(*) FROM tx WHERE state = 'DONE'"),
                "a claim and a result for each DONE row " + when);
    }

    private JarProcess start(String how, String... run) throws Exception {
        return how.equals(LAUNCHER) ? JarProcess.in(dir).withLauncher().start(run) : JarProcess.start(dir, run);
    }

    /** One channel: resends first, then new transfers, until the relay dies or the cycle ends. */
    private static void load(int port, Queue<String> resend, Map<String, byte[]> written, Set<String> unanswered,
            AtomicInteger answered, AtomicBoolean stop) {
        try (Channel channel = Channel.open(port)) {
            while (!stop.get()) {
                String guid = resend.poll();
                if (guid == null) {
                    guid = newGuid();
                    written.put(guid, transfer(guid));
                    unanswered.add(guid);
                }
                String code = Telegram.rspCode(channel.send(written.get(guid)));
                if (!code.equals("E903")) {
                    if (!code.equals("0000")) {
                        throw new AssertionError(guid + " answered " + code);
                    }
                    unanswered.remove(guid);
                    answered.incrementAndGet();
                }
            }
        } catch (IOException killed) {
            // the relay died: what this channel sent last stays unanswered, to be resent
        }
    }
}
