package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idempotentrelay.core.CoreSimulator;
import dev.idempotentrelay.support.Await;
import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.CoreClient;
import dev.idempotentrelay.support.JarProcess;
import dev.idempotentrelay.support.LedgerFile;
import dev.idempotentrelay.support.Ports;
import dev.idempotentrelay.telegram.Telegram;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The backup of a SQLite ledger as docs/operations.md has an operator take it: the sqlite3 shell's {@code VACUUM INTO}
 * on the ledger of a packaged relay that goes on serving channels meanwhile. The copy is intact and holds every
 * transfer answered before it began; restored as the document says (the ledger and its -wal and -shm moved aside, the
 * copy in their place), a relay on it answers the resends of those transfers with their stored replies, byte for
 * byte, and the core gets no second POST.
 */
class LedgerBackupIT {

    private static final Duration START = Duration.ofSeconds(60);
    private static final int LOAD_CHANNELS = 4;

    @TempDir
    Path dir;

    @Test
    void aCopyTakenWhileTheRelayServesHoldsEveryAnsweredTransferAndARelayRestoredOnItReplaysThem() throws Exception {
        try (CoreSimulator core = CoreSimulator.start(0, 1_000)) {
            CoreClient coreView = new CoreClient(core.url());
            Map<String, byte[]> answered = new ConcurrentHashMap<>();
            Set<String> answeredBeforeTheCopy;
            int port = Ports.free();
            try (JarProcess relay = JarProcess.start(dir, relayArgs(port, core))) {
                relay.awaitLine("listening on port " + port, START);

                // channels keep sending new transfers while the copy is taken
                AtomicBoolean stop = new AtomicBoolean();
                ExecutorService pool = Executors.newFixedThreadPool(LOAD_CHANNELS);
                List<Future<?>> senders = new ArrayList<>();
                for (int i = 0; i < LOAD_CHANNELS; i++) {
                    senders.add(pool.submit(() -> {
                        try (Channel channel = Channel.open(port)) {
                            while (!stop.get()) {
                                String guid = newGuid();
                                byte[] reply = channel.send(transfer(guid));
                                assertEquals("0000", Telegram.rspCode(reply), guid);
                                answered.put(guid, reply);
                            }
                        }
                        return null;
                    }));
                }
                Await.until("the channels got 200 replies", Duration.ofSeconds(30), () -> answered.size() >= 200);
                answeredBeforeTheCopy = Set.copyOf(answered.keySet());

                sqlite3("relay.db", "VACUUM INTO 'backup.db'");

                int atTheCopy = answered.size();
                Await.until("the relay served on after the copy", Duration.ofSeconds(30), () -> answered.size() >= atTheCopy + 100);
                stop.set(true);
                for (Future<?> sender : senders) {
                    sender.get(30, TimeUnit.SECONDS);
                }
                pool.shutdown();
                relay.terminate();
            }

            LedgerFile copy = new LedgerFile(dir.resolve("backup.db"));
            assertEquals("ok", copy.queryString("PRAGMA integrity_check"));
            for (String guid : answeredBeforeTheCopy) {
                Map<String, Object> row = copy.row(guid);
                assertEquals("DONE", row == null ? null : row.get("state"), guid);
                assertArrayEquals(answered.get(guid), (byte[]) row.get("response"), guid);
            }
            assertTrue(copy.count() < answered.size(), "the copy holds transfers answered after it: " + copy.count());

            // the restore of docs/operations.md, with the relay stopped
            bash("mkdir -p replaced && mv relay.db* replaced/ && cp backup.db relay.db");
            Map<String, byte[]> resent = new LinkedHashMap<>();
            answeredBeforeTheCopy.stream().limit(50).forEach(guid -> resent.put(guid, answered.get(guid)));
            long callsBefore = coreView.calls();
            try (JarProcess restored = JarProcess.start(dir, relayArgs(port, core))) {
                restored.awaitLine("listening on port " + port, START);
                try (Channel channel = Channel.open(port)) {
                    for (Map.Entry<String, byte[]> transfer : resent.entrySet()) {
                        assertArrayEquals(transfer.getValue(), channel.send(transfer(transfer.getKey())), transfer.getKey());
                    }
                }
                restored.terminate();
            }
            assertEquals(callsBefore, coreView.calls(), "a resend reached the core");
            for (String guid : resent.keySet()) {
                assertEquals(1, coreView.calls(guid), guid);
            }
        }
    }

    private String[] relayArgs(int port, CoreSimulator core) {
        return new String[] {"run", "--db", "relay.db", "--port", Integer.toString(port), "--core", core.url(),
            "--admin-port", Integer.toString(Ports.free()), "--no-jobs"};
    }

    /** The sqlite3 shell, as the operator runs it in the ledger's folder; fails with its output unless it exits 0. */
    private void sqlite3(String database, String sql) throws Exception {
        run(List.of("sqlite3", database, sql));
    }

    private void bash(String script) throws Exception {
        run(List.of("bash", "-c", script));
    }

    private void run(List<String> argv) throws Exception {
        Process process;
        try {
            process = new ProcessBuilder(argv).directory(dir.toFile()).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IllegalStateException(argv.get(0) + " is missing: the backup's test needs the sqlite3 shell"
                    + " (Debian: apt-get install sqlite3; .ci/run installs it)", e);
        }
        String output = new String(process.getInputStream().readAllBytes());
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), String.join(" ", argv) + " did not finish");
        assertEquals(0, process.exitValue(), String.join(" ", argv) + ": " + output);
    }
}
