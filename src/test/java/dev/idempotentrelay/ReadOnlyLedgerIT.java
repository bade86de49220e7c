package dev.idempotentrelay;

import static dev.idempotentrelay.support.Requests.newGuid;
import static dev.idempotentrelay.support.Requests.transfer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.idempotentrelay.support.Channel;
import dev.idempotentrelay.support.JarProcess;
import dev.idempotentrelay.support.Ports;
import dev.idempotentrelay.support.Unprivileged;
import dev.idempotentrelay.telegram.Telegram;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ledger commands read a ledger that they may not write, run by a user for whom the permissions hold (nobody,
 * when the tests run as root): in a read-only folder, as a read-only file, closed by a stopped relay, left with its
 * -wal and -shm by a killed one, and while a relay writes it.
 */
class ReadOnlyLedgerIT {

    private static final Duration START = Duration.ofSeconds(60);
    private static final int TRANSFERS = 5;

    @TempDir
    Path dir;
    private Path folder;
    private Path db;
    private final List<String> guids = new ArrayList<>();

    @BeforeEach
    void ledgerFolder() throws Exception {
        assumeTrue(Unprivileged.available(), "running as root without /usr/bin/setpriv: no user for whom permissions hold");
        Unprivileged.letOthersRead(dir);
        JarProcess.copyInto(dir);
        folder = Files.createDirectory(dir.resolve("ledger"));
        db = folder.resolve("relay.db");
    }

    @AfterEach
    void writableAgain() throws Exception {
        if (folder == null) {
            return;
        }
        Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwxr-xr-x"));
        try (var files = Files.list(folder)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
            }
        }
    }

    @Test
    void aClosedLedgerInAReadOnlyFolderIsRead() throws Exception {
        try (JarProcess relay = startRelay()) {
            sendTransfers(relay);
            relay.terminate();
        }
        assertFalse(Files.exists(Path.of(db + "-wal")), "a stopped relay leaves no -wal");
        readOnly(folder);

        assertReadsEveryTransfer();
        assertEquals(List.of("relay.db"), names(folder), "the reader created no -shm or -wal");
    }

    @Test
    void aReadOnlyLedgerFileIsRead() throws Exception {
        try (JarProcess relay = startRelay()) {
            sendTransfers(relay);
            relay.terminate();
        }
        readOnly(db);
        // the reader may create the -shm beside it
        Unprivileged.letOthersWrite(folder);

        assertReadsEveryTransfer();
    }

    @Test
    void aKilledRelaysLedgerWithItsWalInAReadOnlyFolderIsReadWithTheWal() throws Exception {
        try (JarProcess relay = startRelay()) {
            sendTransfers(relay);
            relay.kill();
        }
        // (no connection of this test may open it now: closing the last one would checkpoint and delete the -wal)
        assertTrue(Files.exists(Path.of(db + "-shm")), names(folder).toString());
        assertTrue(Files.size(Path.of(db + "-wal")) > 0, names(folder).toString());
        for (Path file : List.of(db, Path.of(db + "-wal"), Path.of(db + "-shm"))) {
            readOnly(file);
        }
        readOnly(folder);

        // the rows are in the -wal (no checkpoint copied them yet): an immutable read of the main file would miss them
        assertReadsEveryTransfer();
    }

    @Test
    void aLedgerInAFolderTheReaderMayNotWriteIsReadWhileARelayWritesIt() throws Exception {
        // the relay must write the folder that the reader may not: two users, so the tests must run as root
        assumeTrue(Unprivileged.needed(), "needs two users: the relay's, who writes the folder, and the reader's");
        try (JarProcess relay = startRelay(); Channel channel = Channel.open(port)) {
            for (int round = 1; round <= 5; round++) {
                for (int i = 0; i < 20; i++) {
                    assertEquals("0000", Telegram.rspCode(channel.send(transfer(newGuid()))));
                }
                assertTrue(Files.exists(Path.of(db + "-wal")), "the running relay's ledger has its -wal");
                Map<String, Long> rows = stats();
                // every transfer answered was recorded DONE before its reply was written
                assertEquals(round * 20L, rows.get("DONE"), rows.toString());
                assertEquals(round * 20L, rows.get("total"), rows.toString());
            }
        }
    }

    private int port;

    private JarProcess startRelay() throws Exception {
        port = Ports.free();
        JarProcess relay = JarProcess.start(dir, "run", "--core-sim", "--core", "http://localhost:" + Ports.free(),
                "--port", Integer.toString(port), "--admin-port", Integer.toString(Ports.free()), "--no-jobs",
                "--db", dir.relativize(db).toString());
        relay.awaitLine("listening on port " + port, START);
        return relay;
    }

    private void sendTransfers(JarProcess relay) throws Exception {
        try (Channel channel = Channel.open(port)) {
            for (int i = 0; i < TRANSFERS; i++) {
                String guid = newGuid();
                assertEquals("0000", Telegram.rspCode(channel.send(transfer(guid))));
                guids.add(guid);
            }
        }
    }

    /** ledger stats, list and show, run as a user who may not write the ledger, see every transfer sent. */
    private void assertReadsEveryTransfer() throws Exception {
        Map<String, Long> rows = stats();
        assertEquals(TRANSFERS, rows.get("DONE"), rows.toString());
        assertEquals(TRANSFERS, rows.get("total"), rows.toString());
        JarProcess list = reader("ledger", "list", "--state", "DONE", "--db", dir.relativize(db).toString());
        assertEquals(0, list.exitCode(), list.errors().toString());
        assertEquals(TRANSFERS + 1, list.output().size(), list.output().toString());
        JarProcess show = reader("ledger", "show", guids.get(0), "--db", dir.relativize(db).toString());
        assertEquals(0, show.exitCode(), show.errors().toString());
        assertTrue(show.output().stream().anyMatch(l -> l.matches("state +DONE")), show.output().toString());
    }

    private Map<String, Long> stats() throws Exception {
        JarProcess stats = reader("ledger", "stats", "--db", dir.relativize(db).toString());
        assertEquals(0, stats.exitCode(), "stdout " + stats.output() + ", stderr " + stats.errors());
        assertEquals(List.of(), stats.errors());
        Map<String, Long> rows = new TreeMap<>();
        for (String line : stats.output().subList(1, stats.output().size())) {
            String[] cells = line.trim().split("\\s+");
            rows.put(cells[0], Long.parseLong(cells[1]));
        }
        return rows;
    }

    private JarProcess reader(String... args) throws Exception {
        return JarProcess.in(dir).unprivileged().run(args);
    }

    private static void readOnly(Path path) throws Exception {
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(Files.isDirectory(path) ? "r-xr-xr-x" : "r--r--r--"));
    }

    private static List<String> names(Path folder) throws Exception {
        try (var files = Files.list(folder)) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }
}
