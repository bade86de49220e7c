package dev.idempotentrelay.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.camel.component.sql.DefaultSqlPrepareStatementStrategy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteConnection;
import org.sqlite.SQLiteDataSource;

/**
 * Group commit on a real SQLite file behind a real Hikari pool, under real concurrency: each write keeps its own
 * update count and is committed when it returns; a bad write fails alone; a broken connection is replaced; the WAL
 * is copied into the ledger file every so many writes.
 */
class SqliteGroupCommitTest {

    private static final String CLAIM = "INSERT INTO tx (guid, tx_code, state, request, attempts, created_at, updated_at) "
            + "VALUES (?, 'TR01', ?, ?, abs(?), '2026-01-01 00:00:00', '2026-01-01 00:00:00') ON CONFLICT (guid) DO NOTHING";

    private static final DefaultSqlPrepareStatementStrategy CAMEL_SQL = new DefaultSqlPrepareStatementStrategy();

    @TempDir
    Path dir;

    private final HandedOutConnections connections = new HandedOutConnections();
    private HikariDataSource pool;
    private SqliteGroupCommit writer;
    private String url;

    @BeforeEach
    void open() throws Exception {
        url = "jdbc:sqlite:" + dir.resolve("ledger.db") + "?journal_mode=WAL&synchronous=FULL&busy_timeout=5000";
        connections.setUrl(url);
        pool = new HikariDataSource();
        pool.setDataSource(connections);
        pool.setMaximumPoolSize(4);
        pool.setConnectionTimeout(2_000);
        new LedgerMigrations(pool, LedgerDialect.SQLITE).migrate(line -> { });
        writer = new SqliteGroupCommit(pool, 512, 1000);
    }

    @AfterEach
    void close() throws Exception {
        writer.close();
        pool.close();
    }

    /** What one caller thread does, given its number. */
    private interface Caller {
        void run(int thread) throws Exception;
    }

    /** Runs {@code threads} callers at once (they start together) and waits for every one; a caller's failure fails the test. */
    private static void together(int threads, Caller caller) throws Exception {
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService callers = Executors.newFixedThreadPool(threads);
        List<Future<?>> results = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                int thread = t;
                results.add(callers.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    caller.run(thread);
                    return null;
                }));
            }
            for (Future<?> result : results) {
                result.get(120, TimeUnit.SECONDS);
            }
        } finally {
            callers.shutdownNow();
        }
    }

    private int claim(String guid) throws SQLException {
        return claim(guid, "SENT", 1L);
    }

    private int claim(String guid, String state, long attempts) throws SQLException {
        return writer.write(CLAIM, List.of(guid, state, new byte[] {1, 2, 3}, attempts), CAMEL_SQL);
    }

    private boolean committed(String guid) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); PreparedStatement ps = c.prepareStatement("SELECT 1 FROM tx WHERE guid = ?")) {
            ps.setString(1, guid);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    @Test
    void concurrentClaimsEachGetTheirOwnCountAndAreCommittedWhenTheyReturn() throws Exception {
        int threads = 32;
        int guids = 400;
        CyclicBarrier together = new CyclicBarrier(threads);
        ExecutorService callers = Executors.newFixedThreadPool(threads);
        List<Future<int[]>> results = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                results.add(callers.submit(() -> {
                    together.await(10, TimeUnit.SECONDS);
                    int[] won = new int[guids];
                    for (int g = 0; g < guids; g++) {
                        String guid = String.format("G%031d", g);
                        won[g] = claim(guid);
                        if (won[g] == 1 && !committed(guid)) {
                            throw new AssertionError(guid + " was claimed but not committed when the claim returned");
                        }
                    }
                    return won;
                }));
            }
            int[] winners = new int[guids];
            for (Future<int[]> result : results) {
                int[] won = result.get(120, TimeUnit.SECONDS);
                for (int g = 0; g < guids; g++) {
                    winners[g] += won[g];
                }
            }
            for (int g = 0; g < guids; g++) {
                assertEquals(1, winners[g], "claims that won GUID " + g);
            }
        } finally {
            callers.shutdownNow();
        }
        long[] cw = writer.commitsAndWrites();
        assertEquals(threads * guids, cw[1], "every write went through the writer");
        assertTrue(cw[0] < cw[1], "writes shared commits");
        System.out.printf("group commit: %d writes in %d commits (%.1f per commit)%n", cw[1], cw[0], (double) cw[1] / cw[0]);
    }

    /**
     * Among concurrent claims, writes after which SQLite ends the whole transaction by itself, as it may on
     * SQLITE_FULL or SQLITE_IOERR (here a trigger's RAISE(ROLLBACK), which does so every time), and writes that fail
     * alone (a CHECK), after which the writer runs the rest of the group again. Whatever the writer
     * then does with the rest of the group, a claim it reports committed is on disk, and a claim it reports failed is
     * not: no write runs again outside a transaction, durable while its caller was told it failed.
     */
    @Test
    void aWriteAfterWhichSqliteEndsTheTransactionLeavesNoClaimDurableThatWasReportedFailed() throws Exception {
        try (Connection c = DriverManager.getConnection(url); java.sql.Statement s = c.createStatement()) {
            s.execute("CREATE TABLE bait (n INTEGER)");
            s.execute("CREATE TRIGGER bait_rolls_back AFTER INSERT ON bait BEGIN SELECT RAISE(ROLLBACK, 'rolled back by SQLite itself'); END");
        }
        int each = 60;
        List<String> reportedCommitted = new CopyOnWriteArrayList<>();
        List<String> reportedFailed = new CopyOnWriteArrayList<>();
        together(16, thread -> {
            for (int n = 0; n < each; n++) {
                if ((thread + n) % 6 == 0) {
                    assertThrows(SQLException.class, () -> writer.write("INSERT INTO bait (n) VALUES (?)", List.of(1), CAMEL_SQL));
                    continue;
                }
                if ((thread + n) % 6 == 3) {
                    // a write that fails alone (a CHECK): the writer rolls back and runs the others again
                    String bogus = String.format("B%02dN%028d", thread, n);
                    assertThrows(SQLException.class, () -> claim(bogus, "BOGUS", 1L));
                    continue;
                }
                String guid = String.format("R%02dN%028d", thread, n);
                try {
                    assertEquals(1, claim(guid));
                    reportedCommitted.add(guid);
                } catch (SQLException e) {
                    reportedFailed.add(guid);
                }
            }
        });
        for (String guid : reportedCommitted) {
            assertTrue(committed(guid), guid + " was reported committed but is not on disk");
        }
        for (String guid : reportedFailed) {
            assertFalse(committed(guid), guid + " was reported failed but is on disk");
        }
        assertTrue(reportedCommitted.size() > 0, "some claims committed");
        // the writer works on after it: a claim now commits
        assertEquals(1, claim(String.format("%032d", 7)));
        assertTrue(committed(String.format("%032d", 7)));
        System.out.printf("after SQLite's own rollbacks: %d claims committed, %d reported failed%n", reportedCommitted.size(), reportedFailed.size());
    }

    /**
     * Among concurrent good claims, bad ones of four kinds: a CHECK constraint, an error SQLite raises while it runs
     * the statement (integer overflow in abs()), a table that does not exist, and too few parameter values. Each bad
     * one fails its caller alone; every good one is on disk when it returns.
     */
    @Test
    void aBadStatementAmongConcurrentGoodOnesFailsAloneAndTheGoodOnesAreOnDisk() throws Exception {
        int threads = 16;
        int each = 100;
        List<String> good = new CopyOnWriteArrayList<>();
        List<String> bad = new CopyOnWriteArrayList<>();
        together(threads, thread -> {
            for (int n = 0; n < each; n++) {
                String guid = String.format("T%02dN%028d", thread, n);
                SQLException failure = null;
                String expected = null;
                try {
                    switch ((thread + n) % 8) {
                        case 1 -> {
                            expected = "CHECK";
                            claim(guid, "BOGUS", 1L);
                        }
                        case 3 -> {
                            expected = "integer overflow";
                            claim(guid, "SENT", Long.MIN_VALUE);
                        }
                        case 5 -> {
                            expected = "no_such_table";
                            writer.write("UPDATE no_such_table SET x = ? WHERE guid = ?", List.of("x", guid), CAMEL_SQL);
                        }
                        case 7 -> {
                            expected = "mismatch";
                            writer.write(CLAIM, List.of(guid, "SENT"), CAMEL_SQL);
                        }
                        default -> {
                            assertEquals(1, claim(guid));
                            if (!committed(guid)) {
                                throw new AssertionError(guid + " was claimed but not committed when the claim returned");
                            }
                            good.add(guid);
                        }
                    }
                } catch (SQLException e) {
                    failure = e;
                }
                if (expected != null) {
                    if (failure == null || !failure.getMessage().contains(expected)) {
                        throw new AssertionError(guid + ": expected a failure with " + expected + ", got " + failure, failure);
                    }
                    bad.add(guid);
                } else if (failure != null) {
                    throw new AssertionError(guid + " (a good claim) failed: " + failure, failure);
                }
            }
        });
        assertEquals(threads * each / 2, good.size());
        assertEquals(threads * each / 2, bad.size());
        for (String guid : good) {
            assertTrue(committed(guid), guid);
        }
        for (String guid : bad) {
            assertFalse(committed(guid), guid);
        }
        long[] cw = writer.commitsAndWrites();
        assertEquals(threads * each, cw[1], "bad and good writes alike were committed in groups");
        assertTrue(cw[0] < cw[1], "bad writes shared groups with good ones");
        System.out.printf("with bad writes: %d writes in %d commits (%.1f per commit)%n", cw[1], cw[0], (double) cw[1] / cw[0]);
    }

    @Test
    void aWriterWhoseConnectionWasClosedUnderItTakesANewOneForTheNextWrite() throws Exception {
        assertEquals(1, claim("BEFORE00000000000000000000000000"));
        // every connection the pool opened, the writer's among them, closed under its user, as a broken link would be
        for (Connection c : connections.handedOut) {
            c.close();
        }
        SQLException broken = assertThrows(SQLException.class, () -> claim("BROKEN00000000000000000000000000"),
                "the write that meets the closed connection fails: nothing of it is on disk");
        assertFalse(committed("BROKEN00000000000000000000000000"));
        for (int g = 0; g < 10; g++) {
            String guid = String.format("AFTER%027d", g);
            assertEquals(1, claim(guid), "the writer took a new connection from the pool (after: " + broken.getMessage() + ")");
            assertTrue(committed(guid));
        }
        assertEquals(1, claim("BROKEN00000000000000000000000000"), "the failed claim can be made again");
    }

    @Test
    void writesDoNotWaitForAPooledConnection() throws Exception {
        claim("FIRST000000000000000000000000000"); // the writer takes its own connection
        List<Connection> taken = new ArrayList<>();
        try {
            // every other connection of the pool is held by someone else, as by slow readers
            for (int i = 1; i < pool.getMaximumPoolSize(); i++) {
                taken.add(pool.getConnection());
            }
            assertThrows(SQLException.class, () -> pool.getConnection().close(), "a read waits for a pooled connection and gives up");
            for (int g = 0; g < 20; g++) {
                String guid = String.format("W%031d", g);
                assertEquals(1, claim(guid), "a write goes through without a pooled connection");
                assertTrue(committed(guid));
            }
        } finally {
            for (Connection c : taken) {
                c.close();
            }
        }
    }

    /**
     * The writer stopped while 8 threads keep claiming: every claim gets an answer, and the answer is what is on disk.
     * A claim that returned 1 was queued before the stop and is committed; one that was refused ("the ledger writer is
     * stopped") came after it and left nothing. None waits for ever, none is lost.
     */
    @Test
    void stopCommitsWhatWasQueuedAndRefusesWhatComesAfter() throws Exception {
        int threads = 8;
        CyclicBarrier together = new CyclicBarrier(threads + 1);
        ExecutorService callers = Executors.newFixedThreadPool(threads);
        List<Future<List<String>>> results = new ArrayList<>();
        List<String> refused = new CopyOnWriteArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                int thread = t;
                results.add(callers.submit(() -> {
                    List<String> claimed = new ArrayList<>();
                    together.await(10, TimeUnit.SECONDS);
                    for (int n = 0; ; n++) {
                        String guid = String.format("Q%02dN%028d", thread, n);
                        try {
                            assertEquals(1, claim(guid));
                            claimed.add(guid);
                        } catch (SQLException e) {
                            assertEquals("the ledger writer is stopped", e.getMessage());
                            refused.add(guid);
                            return claimed;
                        }
                    }
                }));
            }
            together.await(10, TimeUnit.SECONDS);
            // the callers are claiming by now: stop the writer when some of their claims are committed
            while (writer.commitsAndWrites()[1] < 100) {
                Thread.onSpinWait();
            }
            writer.close();
            int claimed = 0;
            for (Future<List<String>> result : results) {
                for (String guid : result.get(30, TimeUnit.SECONDS)) {
                    assertTrue(committed(guid), guid + " was claimed before the stop but is not on disk");
                    claimed++;
                }
            }
            assertTrue(claimed >= 100, "claims committed before the stop: " + claimed);
            assertEquals(threads, refused.size(), "each caller's first claim after the stop was refused");
            for (String guid : refused) {
                assertFalse(committed(guid), guid + " was refused but is on disk");
            }
        } finally {
            callers.shutdownNow();
        }
        SQLException stopped = assertThrows(SQLException.class, () -> claim("LATE0000000000000000000000000000"));
        assertEquals("the ledger writer is stopped", stopped.getMessage());
    }

    @Test
    void theWalIsCopiedIntoTheLedgerFileAsTheWritesGoOnAndStartsOverSoItStaysSmall() throws Exception {
        writer.close();
        writer = new SqliteGroupCommit(pool, 512, 50);
        Path wal = dir.resolve("ledger.db-wal");
        long largestWal = 0;
        for (int g = 0; g < 3_000; g++) {
            assertEquals(1, claim(String.format("C%031d", g)));
            largestWal = Math.max(largestWal, java.nio.file.Files.size(wal));
        }
        long[] checkpoints = writer.checkpoints();
        assertTrue(checkpoints[0] >= 10 && checkpoints[1] >= 10, "background passes and the writer's own: "
                + checkpoints[0] + " and " + checkpoints[1]);
        // 3,000 claims are some 4,500 pages of WAL when it never starts over; copied every 50 writes it stays far below
        assertTrue(largestWal < 2_000 * 4_096, "the WAL grew to " + largestWal + " bytes");
        // the ledger file alone, without its WAL, as a copy of it opens: at least all but the last 100 claims
        Path copy = dir.resolve("copy.db");
        java.nio.file.Files.copy(dir.resolve("ledger.db"), copy);
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + copy);
                ResultSet rs = c.createStatement().executeQuery("SELECT count(*) FROM tx")) {
            assertTrue(rs.next());
            assertTrue(rs.getInt(1) >= 2_900, rs.getInt(1) + " claims in the ledger file itself");
        }
    }

    /** A real SQLite data source that keeps the connections it hands out, so that a test can close one under its user. */
    private static final class HandedOutConnections extends SQLiteDataSource {
        final List<Connection> handedOut = new CopyOnWriteArrayList<>();

        @Override
        public SQLiteConnection getConnection(String username, String password) throws SQLException {
            SQLiteConnection c = super.getConnection(username, password);
            handedOut.add(c);
            return c;
        }
    }
}
